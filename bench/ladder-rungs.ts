/** The cost ladder's rungs, bottom up (see ladder-server.ts); `plantstore serve` is the top one. */
export const RUNGS = ['fastify', 'auth', 'store', 'contract'] as const

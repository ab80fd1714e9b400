/** The part of a logger the dispatcher uses: pino's (Fastify's), or one relaying from its thread. */
export interface Log {
  debug: (fields: object, message: string) => void
  info: (fields: object, message: string) => void
  warn: (fields: object, message: string) => void
  error: (fields: object, message: string) => void
}

export type LogLevel = keyof Log

/** An error as a plain object that survives postMessage and reads well in a JSON log line. */
export function plainError (error: unknown): object {
  if (!(error instanceof Error)) return { message: String(error) }
  const { code } = error as { code?: unknown }
  return { type: error.name, message: error.message, ...(code !== undefined && { code }), stack: error.stack }
}

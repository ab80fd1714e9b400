import underPressure from '@fastify/under-pressure'
import fp from 'fastify-plugin'
import { StorageUnavailable } from '../contract/errors.js'
import { sendError } from './error-handler.js'

/**
 * Sheds load instead of collapsing: while the event loop lags more than `maxEventLoopDelayMs`, new
 * requests are answered at once with 503 (code 5001, Retry-After) rather than queued behind the lag.
 */
export default fp<{ maxEventLoopDelayMs: number }>(async (app, { maxEventLoopDelayMs }) => {
  if (maxEventLoopDelayMs === 0) return
  await app.register(underPressure, {
    maxEventLoopDelay: maxEventLoopDelayMs,
    retryAfter: 1,
    pressureHandler: (request, reply, type, value) => {
      // Infinity: the last second had no sample at all, so one block outlasted it (a start-up loading
      // and compiling, on a busy machine) and is over by now. Lag from sustained load is sampled.
      if (type === 'eventLoopDelay' && value === Infinity) return
      sendError(new StorageUnavailable(), request, reply)
    }
  })
}, { name: 'overload', dependencies: ['error-handler'] })

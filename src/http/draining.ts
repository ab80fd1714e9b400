import fp from 'fastify-plugin'
import { ApiError, StorageUnavailable } from '../contract/errors.js'
import { sendError } from './error-handler.js'

// The table's 503 (code 5001, Retry-After), with a message that says why.
const unavailable = new StorageUnavailable()
const shuttingDown = () => new ApiError(unavailable.status, unavailable.code, 'this server is shutting down; retry later', unavailable.headers)

/**
 * While the server closes, it still listens until its preClose hooks are done (the feed and the webhook
 * dispatcher stopping can take seconds). A request arriving then is answered 503 in the Error shape,
 * `Connection: close`, instead of Fastify's own body. Routes marked `answersWhileDraining` answer it
 * themselves: a browser's EventSource gives up for good on any status but 200, so GET /events tells
 * it to come back later instead. Register before every plugin with a preClose hook.
 */
export default fp((app, _options, done) => {
  app.decorate('draining', false)
  app.addHook('preClose', (next) => {
    app.draining = true
    next()
  })
  app.addHook('onRequest', (request, reply, next) => {
    if (!app.draining) {
      next()
      return
    }
    reply.header('connection', 'close')
    if (request.routeOptions.config.answersWhileDraining === true) {
      next()
      return
    }
    sendError(shuttingDown(), request, reply)
  })
  done()
}, { name: 'draining', dependencies: ['error-handler'] })

import fp from 'fastify-plugin'
import { StorageUnavailable } from '../contract/errors.js'
import { sendError } from './error-handler.js'

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
    sendError(new StorageUnavailable('this server is shutting down; retry later'), request, reply)
  })
  done()
}, { name: 'draining', dependencies: ['error-handler'] })

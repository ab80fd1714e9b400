import fp from 'fastify-plugin'
import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api'
import type { Span, Tracer } from '@opentelemetry/api'
import type { FastifyRequest } from 'fastify'

// SpanKind.SERVER and SpanStatusCode.ERROR.
const SERVER = 1
const ERROR = 2

const spans = new WeakMap<FastifyRequest, Span>()

/**
 * One span per request, named `METHOD /route`, under the caller's `traceparent` when it sends one, and
 * active through every hook and the handler so the store's spans and the events it appends hang under
 * it. The sampler decides at the start; a request it does not sample costs one span id and one
 * context, and its attributes are never built. (@fastify/otel, tried first, added a span per handler
 * and built every attribute for unsampled requests too: served GET ÷ untraced 0.75 at ratio 0.)
 */
export const requestSpans = (tracer: Tracer) => fp((app, _options, done) => {
  app.addHook('onRequest', (request, _reply, next) => {
    const parent = request.headers.traceparent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, request.headers)
    const span = tracer.startSpan(`${request.method} ${request.routeOptions.url ?? ''}`.trimEnd(), { kind: SERVER }, parent)
    if (!span.isRecording()) {
      next()
      return
    }
    spans.set(request, span)
    context.with(trace.setSpan(parent, span), next)
  })
  app.addHook('onError', (request, _reply, error, next) => {
    const span = spans.get(request)
    if (span?.isRecording() === true) span.recordException(error)
    next()
  })
  app.addHook('onResponse', (request, reply, next) => {
    const span = spans.get(request)
    if (span?.isRecording() === true) {
      span.setAttributes({
        'http.request.method': request.method,
        'url.path': request.url.split('?', 1)[0],
        'http.response.status_code': reply.statusCode,
        ...(request.routeOptions.url !== undefined && { 'http.route': request.routeOptions.url })
      })
      if (reply.statusCode >= 500) span.setStatus({ code: ERROR })
    }
    span?.end()
    next()
  })
  done()
}, { name: 'request-spans' })

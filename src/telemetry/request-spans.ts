import fp from 'fastify-plugin'
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api'
import type { Span, Tracer } from '@opentelemetry/api'
import type { FastifyRequest } from 'fastify'
import { onHangUp } from '../lib/hang-up.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's span while it records (request-spans.ts). */
    traceSpan: Span | null
  }
}

/** The attributes of a request's span, answered or not. */
const requestAttributes = (request: FastifyRequest) => ({
  'http.request.method': request.method,
  'url.path': request.url.split('?', 1)[0],
  ...(request.routeOptions.url !== undefined && { 'http.route': request.routeOptions.url })
})

/**
 * One span per request, named `METHOD /route`, under the caller's `traceparent` when it sends one, and
 * active through every hook and the handler so the store's spans and the events it appends hang under
 * it. The SDK's sampler decides; a span that does not record is never made active, and attributes are
 * set at the end, only on one that records.
 * (@fastify/otel, tried first, also made a span per handler and built every attribute and context for
 * requests never sampled.)
 */
export const requestSpans = (tracer: Tracer) => fp((app, _options, done) => {
  // A property every request has from the start keeps requests one shape (a WeakMap cost GC time).
  app.decorateRequest('traceSpan', null)
  app.addHook('onRequest', (request, reply, next) => {
    const parent = request.headers.traceparent === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, request.headers)
    const span = tracer.startSpan(`${request.method} ${request.routeOptions.url ?? ''}`.trimEnd(), { kind: SpanKind.SERVER }, parent)
    if (!span.isRecording()) {
      next()
      return
    }
    request.traceSpan = span
    // A client that hangs up gets no answer, so onResponse never runs: the span ends here, with no status code.
    onHangUp(reply.raw, () => {
      if (request.traceSpan !== span) return
      span.setAttributes({ ...requestAttributes(request), 'error.type': 'client_closed' })
      span.end()
      request.traceSpan = null
    })
    context.with(trace.setSpan(parent, span), next)
  })
  app.addHook('onError', (request, _reply, error, next) => {
    const span = request.traceSpan
    if (span?.isRecording() === true) span.recordException(error)
    next()
  })
  app.addHook('onResponse', (request, reply, next) => {
    const span = request.traceSpan
    if (span?.isRecording() === true) {
      span.setAttributes({ ...requestAttributes(request), 'http.response.status_code': reply.statusCode })
      if (reply.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
    }
    span?.end()
    request.traceSpan = null
    next()
  })
  done()
}, { name: 'request-spans' })

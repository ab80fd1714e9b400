// The thread that sends the serving thread's spans (span-export-thread.ts): the SDK's own OTLP
// exporter for the protocol asked, configured by the same OTEL_* variables, reading each batch's spans
// as they were posted.
import { parentPort, workerData } from 'node:worker_threads'
import type { SpanExporter } from '@opentelemetry/sdk-trace'
import { fromBatch } from './span-records.js'
import type { FromExportThread, OtlpHttpProtocol, ToExportThread } from './span-export-thread.js'

const { protocol } = workerData as { protocol: OtlpHttpProtocol }
const port = parentPort!
const { OTLPTraceExporter } = protocol === 'http/json'
  ? await import('@opentelemetry/exporter-trace-otlp-http')
  : await import('@opentelemetry/exporter-trace-otlp-proto')
const exporter: SpanExporter = new OTLPTraceExporter()

const answer = (id: number, error?: unknown) => {
  port.postMessage({ id, ...(error !== undefined && { error: error instanceof Error ? error.message : String(error) }) } satisfies FromExportThread)
}

port.on('message', (message: ToExportThread) => {
  if (message.batch !== undefined) {
    exporter.export(fromBatch(message.batch), (result) => {
      answer(message.id, result.code === 0 ? undefined : (result.error ?? 'the export failed'))
    })
  } else if (message.flush === true) {
    exporter.forceFlush!().then(() => { answer(message.id) }, (error: unknown) => { answer(message.id, error) })
  } else if (message.shutdown === true) {
    exporter.shutdown().then(() => { answer(message.id) }, (error: unknown) => { answer(message.id, error) })
      .finally(() => { port.close() })
  }
})

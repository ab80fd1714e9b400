import type { Worker } from 'node:worker_threads'
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace'
import { spawnWorker } from '../lib/worker-thread.js'
import { toBatch } from './span-records.js'
import type { SpanBatch } from './span-records.js'

/** The OTLP protocols over HTTP, which the export thread speaks. */
export type OtlpHttpProtocol = 'http/protobuf' | 'http/json'

/** What the serving thread asks of the export thread, each answered by its id. */
export interface ToExportThread { id: number, batch?: SpanBatch, flush?: true, shutdown?: true }
export interface FromExportThread { id: number, error?: string }

type ExportCallback = Parameters<SpanExporter['export']>[1]
// ExportResultCode's numbers.
const SUCCESS = 0
const FAILED = 1

/**
 * The protocol of the one trace exporter the standard variables choose, read as the SDK reads them
 * (OTEL_TRACES_EXPORTER, by default `otlp`; OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, then
 * OTEL_EXPORTER_OTLP_PROTOCOL, by default http/protobuf), when it is OTLP over HTTP; undefined for
 * anything else (grpc, zipkin, console, several), which the SDK then exports itself.
 */
export function otlpHttpProtocolOf (env: NodeJS.ProcessEnv): OtlpHttpProtocol | undefined {
  const named = [...new Set((env.OTEL_TRACES_EXPORTER ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '' && name !== 'null'))]
  // The SDK exports nothing when `none` comes first, and reads `none` among others as `otlp`.
  if (named[0] === 'none') return undefined
  const exporters = named.length === 0 || named.includes('none') ? ['otlp'] : named
  if (exporters.length !== 1 || exporters[0] !== 'otlp') return undefined
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim() || 'http/protobuf'
  return protocol === 'http/protobuf' || protocol === 'http/json' ? protocol : undefined
}

/** A positive number from the environment, as the SDK reads OTEL_BSP_*: anything else is the default. */
function positive (value: string | undefined): number | undefined {
  const number = value === undefined || value.trim() === '' ? Number.NaN : Number(value)
  return number > 0 ? number : undefined
}

/** The batch span processor's settings (OTEL_BSP_*), as the SDK reads them for the exporter it builds. */
export function batchOptionsOf (env: NodeJS.ProcessEnv) {
  return {
    maxQueueSize: positive(env.OTEL_BSP_MAX_QUEUE_SIZE),
    scheduledDelayMillis: positive(env.OTEL_BSP_SCHEDULE_DELAY),
    exportTimeoutMillis: positive(env.OTEL_BSP_EXPORT_TIMEOUT),
    maxExportBatchSize: positive(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE)
  }
}

/**
 * A span exporter that hands each batch, as data, to a thread of its own (span-export-worker.ts),
 * where the OTLP exporter serializes and sends it. The serving thread then never runs Node's HTTP
 * client: a client request through the same http and stream functions that serve requests made V8
 * deoptimize them for both kinds of object, and every request served was slower after the first
 * export. A batch's callback runs once the thread has sent it (or failed to), as the SDK's exporter's
 * does. The thread keeps the process alive only while something asked of it is unanswered.
 */
export class ThreadSpanExporter implements SpanExporter {
  readonly #thread: Worker
  readonly #pending = new Map<number, (error: string | undefined) => void>()
  #ids = 0
  #ended: string | undefined
  #shutdown: Promise<void> | undefined

  constructor (protocol: OtlpHttpProtocol) {
    this.#thread = spawnWorker(import.meta.url, 'span-export-worker', { workerData: { protocol } })
    this.#thread.unref()
    this.#thread.on('message', ({ id, error }: FromExportThread) => { this.#settle(id, error) })
    this.#thread.on('error', (error) => { this.#end(`the span export thread failed: ${error.message}`) })
    this.#thread.on('exit', () => { this.#end('the span export thread has ended') })
  }

  export (spans: ReadableSpan[], done: ExportCallback): void {
    this.#ask({ batch: toBatch(spans) }).then(
      () => { done({ code: SUCCESS }) },
      (error: Error) => { done({ code: FAILED, error }) })
  }

  async forceFlush (): Promise<void> {
    await this.#ask({ flush: true }).catch(() => {})
  }

  /** Sends what the thread holds, then ends it; once, however often it is called. */
  shutdown (): Promise<void> {
    this.#shutdown ??= this.#ended !== undefined
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
        this.#thread.once('exit', () => { resolve() })
        this.#ask({ shutdown: true }).catch(() => {})
      })
    return this.#shutdown
  }

  #ask (message: Omit<ToExportThread, 'id'>): Promise<void> {
    if (this.#ended !== undefined) return Promise.reject(new Error(this.#ended))
    const id = ++this.#ids
    if (this.#pending.size === 0) this.#thread.ref()
    return new Promise((resolve, reject) => {
      this.#pending.set(id, (error) => { if (error === undefined) resolve(); else reject(new Error(error)) })
      this.#thread.postMessage({ ...message, id } satisfies ToExportThread)
    })
  }

  #settle (id: number, error: string | undefined) {
    const settle = this.#pending.get(id)
    this.#pending.delete(id)
    if (this.#pending.size === 0) this.#thread.unref()
    settle?.(error)
  }

  /** The thread is gone: what it was asked fails, and so does all that is asked later. */
  #end (reason: string) {
    this.#ended ??= reason
    for (const id of [...this.#pending.keys()]) this.#settle(id, this.#ended)
  }
}

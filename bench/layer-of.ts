/**
 * The layer a profiled function belongs to (bench/layers.ts), by its module: ours (`src/` run by tsx,
 * or `dist/`), a package, or Node's own; by its name for V8's and Node's natives, which have no URL.
 * Undefined for idle time. The first rule that matches wins.
 */
const RULES: Array<[RegExp, string]> = [
  // The socket write is where the kernel's loopback work (and waking the client) is charged.
  [/^native (writeUtf8String|writev|writeBuffer|writeLatin1String)$/, 'socket writes (kernel)'],
  [/^native \(garbage collector\)$/, 'garbage collection'],
  [/^ours\/telemetry\/(access-log|logging)|^package (pino|sonic-boom)\/|^native writeString$/, 'access log'],
  [/^ours\/telemetry\/|^package (prom-client|@opentelemetry\/)/, 'metrics and traces'],
  [/^ours\/http\/request-id|^package fastify\/lib\/req-id-gen-factory|^node:internal\/crypto\/random/, 'request id'],
  [/^ours\/(auth\/|store\/token-)|^package lru-cache\/|^node:internal\/crypto\/hash/, 'auth (bearer, token cache, scopes)'],
  [/^ours\/(store\/|http\/store)|^package (better-sqlite3|pg|pg-[a-z-]+|postgres-[a-z-]+)\//, 'store'],
  [/^ours\/contract\/|^package (ajv|fast-json-stringify|lossless-json|fast-uri)\//, 'contract (validation, serialisation)'],
  [/^ours\/routes\//, 'route handlers'],
  [/^ours\/http\/|^package @fastify\//, 'our other plugins (errors, CORS, load shedding, routes table)'],
  [/^package (fastify|find-my-way|avvio|light-my-request|fastify-plugin)\//, 'fastify'],
  [/^node:|^native \(runMicrotasks\)$/, 'node:http, streams, timers'],
  [/./, 'V8 and natives (the rest)']
]

/** The module part of a URL that names it, whatever directory the project sits in. */
function moduleOf (url: string, functionName: string): string {
  if (url === '') return `native ${functionName}`
  const inPackage = url.lastIndexOf('/node_modules/')
  if (inPackage !== -1) return `package ${url.slice(inPackage + '/node_modules/'.length)}`
  // The last src/, dist/ or bench/ in the path is the project's own.
  const ours = /.*\/(src|dist|bench)\/(.*)$/.exec(url)
  if (ours === null) return url
  return ours[1] === 'bench' ? `bench/${ours[2]}` : `ours/${ours[2]}`
}

export function layerOf (url: string, functionName: string): string | undefined {
  if (functionName === '(idle)') return undefined
  const key = moduleOf(url, functionName)
  return RULES.find(([pattern]) => pattern.test(key))?.[1]
}

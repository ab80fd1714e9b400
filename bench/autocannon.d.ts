// autocannon ships no types; this is the part of its programmatic API the harness uses.
declare module 'autocannon' {
  interface Request { method?: string, path?: string, headers?: Record<string, string>, body?: string }
  interface Options {
    url: string
    connections: number
    duration: number
    headers?: Record<string, string>
    /** Each connection closes and opens again after this many requests. */
    reconnectRate?: number
    requests?: Array<Request & { setupRequest?: (request: Request) => Request }>
  }
  interface Histogram { p50: number, p99: number, average: number }
  interface Result {
    requests: { average: number, total: number }
    latency: Histogram
    errors: number
    timeouts: number
    non2xx: number
    '2xx': number
    statusCodeStats: Record<string, { count: number }>
  }
  export default function autocannon (options: Options): Promise<Result>
}

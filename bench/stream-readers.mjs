// GET /events readers for the benchmark, in a process of their own: `node stream-readers.mjs PORT`,
// then POST /open?url=&token=&count=&after=&filtered= opens `count` streams (each with a filter of its own with filtered=1); each checks its events arrive in
// strictly increasing sequence, counts them, and measures the lag from a create's sending (plant names
// carry it, `t<ms>`) to the event's arrival (on every tenth stream). POST /reset zeroes the counts and lags
// (after a warm-up); POST /drop cuts every connection (no reconnect); POST
// /resume reconnects each with Last-Event-ID; POST /close ends them; GET /stats?until=N reports, and
// how long ago the last stream reached N.
import { createServer } from 'node:http'

let readers = []
let lags = []

function open (url, token, after, sampled, filter) {
  const reader = { last: after, count: 0, outOfOrder: 0, controller: undefined, reachedAt: new Map() }
  reader.connect = async () => {
    reader.controller = new AbortController()
    const headers = { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...(reader.last !== undefined && { 'last-event-id': String(reader.last) }) }
    try {
      const response = await fetch(`${url}/events${filter === undefined ? '' : `?filter=${encodeURIComponent(filter)}`}`, { headers, signal: reader.controller.signal })
      if (!response.ok) throw new Error(`status ${response.status}`)
      const decoder = new TextDecoder()
      let rest = ''
      for await (const chunk of response.body) {
        // Lines are scanned in place (no split): this process must cost far less than the server.
        const text = rest + decoder.decode(chunk, { stream: true })
        const end = text.lastIndexOf('\n') + 1
        // A line not yet ended waits for the next chunk.
        rest = text.slice(end)
        const now = Date.now()
        for (let at = text.indexOf('id: '); at !== -1 && at < end; at = text.indexOf('\nid: ', at + 1)) {
          const from = text[at] === '\n' ? at + 5 : at + 4
          const lineEnd = text.indexOf('\n', from)
          if (lineEnd === -1) break
          const id = Number(text.slice(from, lineEnd))
          if (reader.last !== undefined && id <= reader.last) reader.outOfOrder++
          reader.last = id
          reader.count++
          if (sampled && lags.length < 2_000_000) {
            const sent = /"name":"t(\d+)"/.exec(text.slice(from, text.indexOf('\n\n', from)))?.[1]
            if (sent !== undefined) lags.push(now - Number(sent))
          }
        }
        reader.seenAt = now
      }
    } catch {}
  }
  reader.connect()
  return reader
}

const at = (sorted, q) => (sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))])

const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://readers')
  const answer = (value) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(value ?? {}))
  if (url.pathname === '/open') {
    const count = Number(url.searchParams.get('count'))
    const after = url.searchParams.get('after')
    // Every stream checks order and completeness; every tenth also measures lag (parsing every event's
    // data in this process would make it, not the server, the bottleneck on two cores).
    // With filtered=1, each stream has a filter of its own, every one matching every plant the bench creates.
    const filtered = url.searchParams.get('filtered') === '1'
    for (let i = 0; i < count; i++) {
      const filter = filtered ? `id > ${-1 - i} OR name = "x${i}*"` : undefined
      readers.push(open(url.searchParams.get('url'), url.searchParams.get('token'), after === null ? undefined : Number(after), readers.length % 10 === 0, filter))
    }
    lags = []
    return answer()
  }
  if (url.pathname === '/reset') {
    for (const reader of readers) reader.count = reader.outOfOrder = 0
    lags = []
    return answer()
  }
  if (url.pathname === '/drop') {
    for (const reader of readers) reader.controller?.abort()
    return answer()
  }
  if (url.pathname === '/resume') {
    for (const reader of readers) reader.connect()
    return answer()
  }
  if (url.pathname === '/close') {
    for (const reader of readers) reader.controller?.abort()
    readers = []
    return answer()
  }
  if (url.pathname === '/stats') {
    const until = Number(url.searchParams.get('until') ?? Number.MAX_SAFE_INTEGER)
    const sorted = [...lags].sort((a, b) => a - b)
    const counts = readers.map((reader) => reader.count)
    return answer({
      streams: readers.length,
      atEnd: readers.filter((reader) => reader.last === until).length,
      minEvents: Math.min(...counts),
      maxEvents: Math.max(...counts),
      totalEvents: counts.reduce((sum, count) => sum + count, 0),
      outOfOrder: readers.reduce((sum, reader) => sum + reader.outOfOrder, 0),
      lagP50Ms: at(sorted, 0.5),
      lagP99Ms: at(sorted, 0.99)
    })
  }
  res.writeHead(200).end()
})
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1')

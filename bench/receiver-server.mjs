// A webhook subscriber for the benchmark, in a process of its own: answers every delivery 200 at once
// and counts them. Plant names carry the time the create was sent (`t<ms>`), so the lag from create to
// delivery is measured here. GET /stats?from=&to= reports on the plant ids in [from, to).
import { createServer } from 'node:http'

let seen = new Map() // webhook-id → plant id
let arrivals = [] // [plant id, lag ms]
let duplicates = 0

function stats (from, to) {
  const ids = new Set()
  const lags = []
  for (const [id, lag] of arrivals) {
    if (id < from || id >= to) continue
    ids.add(id)
    lags.push(lag)
  }
  lags.sort((a, b) => a - b)
  const at = (q) => (lags.length === 0 ? null : lags[Math.min(lags.length - 1, Math.floor(q * lags.length))])
  return { received: arrivals.length, delivered: ids.size, duplicates, lagP50Ms: at(0.5), lagP99Ms: at(0.99) }
}

const server = createServer((req, res) => {
  let body = ''
  req.setEncoding('utf8')
  req.on('data', (chunk) => { body += chunk })
  req.on('end', () => {
    const url = new URL(req.url, 'http://receiver')
    if (req.method === 'POST' && url.pathname === '/reset') {
      seen = new Map()
      arrivals = []
      duplicates = 0
      return res.end()
    }
    if (req.method === 'GET' && url.pathname === '/stats') {
      const answer = stats(Number(url.searchParams.get('from') ?? 0), Number(url.searchParams.get('to') ?? Number.MAX_SAFE_INTEGER))
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer))
    }
    const id = Number(/"id":(-?\d+)/.exec(body)?.[1])
    const sentAt = Number(/"name":"t(\d+)/.exec(body)?.[1])
    const messageId = req.headers['webhook-id']
    if (seen.has(messageId)) duplicates++
    else {
      seen.set(messageId, id)
      arrivals.push([id, Date.now() - sentAt])
    }
    res.writeHead(200).end()
  })
})
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening on ${server.address().port}\n`)
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))

// A trace collector for the benchmark, in a process of its own (as a collector runs beside a service,
// not inside its load generator): reads and drops every OTLP/HTTP export and counts them.
// GET /stats reports how many exports arrived.
import { createServer } from 'node:http'

let exports = 0

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ exports }))
  }
  req.resume().on('end', () => {
    exports++
    res.writeHead(200).end()
  })
})
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening on ${server.address().port}\n`)
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))

// The ceiling: a bare node:http server that reads and JSON.parses the same body and answers a constant.
import { createServer } from 'node:http'

const answer = '{"id":1,"name":"Fern"}'
const server = createServer((req, res) => {
  let body = ''
  req.setEncoding('utf8')
  req.on('data', (chunk) => { body += chunk })
  req.on('end', () => {
    if (body !== '') JSON.parse(body)
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length }).end(answer)
  })
})
server.listen(Number(process.argv[2] ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening on ${server.address().port}\n`)
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))

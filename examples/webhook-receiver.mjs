#!/usr/bin/env node
// A webhook receiver for Plant Store: verifies each delivery's Standard Webhooks signature with the
// `standardwebhooks` package, answers 204 to a good one (an acknowledgement) and 401 to a forgery, and
// prints `verified <webhook-id> <body>` for each it accepts.
//
//   WEBHOOK_SECRET=whsec_… PORT=9000 node examples/webhook-receiver.mjs
import { createServer } from 'node:http'
import { Webhook } from 'standardwebhooks'

const secret = process.env.WEBHOOK_SECRET
if (secret === undefined) {
  process.stderr.write('set WEBHOOK_SECRET to the subscription\'s whsec_… secret\n')
  process.exit(2)
}
// The package takes the key without its whsec_ prefix.
const webhook = new Webhook(secret.replace(/^whsec_/, ''))
const port = Number(process.env.PORT ?? 9000)

createServer((request, response) => {
  const chunks = []
  request.on('data', (chunk) => chunks.push(chunk))
  request.on('end', () => {
    // Verify the raw body as it came: parsing first would lose digits of ids above 2^53.
    const body = Buffer.concat(chunks).toString('utf8')
    try {
      webhook.verify(body, request.headers)
    } catch {
      response.writeHead(401).end()
      return
    }
    process.stdout.write(`verified ${request.headers['webhook-id']} ${body}\n`)
    response.writeHead(204).end()
  })
}).listen(port, '127.0.0.1', () => process.stderr.write(`listening on http://127.0.0.1:${port}\n`))

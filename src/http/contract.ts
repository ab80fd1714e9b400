import fp from 'fastify-plugin'
import { SchemaMismatch } from '../contract/errors.js'
import { parseJsonBody } from '../contract/exact-json.js'
import { validatorCompiler } from '../contract/validators.js'

function isDecodable (text: string): boolean {
  try {
    decodeURIComponent(text)
    return true
  } catch {
    return false
  }
}

/**
 * Requests are checked against openapi/plantstore.yaml: bodies are parsed without losing int64 digits,
 * and every schema the routes take from the document is compiled by our validator compiler.
 * Only application/json bodies are accepted; anything else is 415 (code 1002). A request that says
 * application/json but sends no body has no body: a DELETE is served, a create is 400 "body is
 * required" (its schema asks for one), as many clients send the header on every request.
 * A query parameter must be percent-encoded UTF-8: the router keeps a value it cannot decode (`%FF`,
 * or `%ED%A0%80`, a lone surrogate) as sent, which a route would then take for the literal text.
 */
export default fp<{ bodyLimit: number }>(async (app, { bodyLimit }) => {
  app.setValidatorCompiler(validatorCompiler)
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit }, parseJsonBody)
  app.addHook('preValidation', (request, _reply, done) => {
    const query = request.url.indexOf('?')
    if (query === -1 || !request.url.includes('%', query)) return done()
    const malformed = request.url.slice(query + 1).split('&').find((pair) => !isDecodable(pair))
    done(malformed === undefined ? undefined : new SchemaMismatch(`query/${malformed.split('=')[0]} is not percent-encoded UTF-8`))
  })
}, { name: 'contract' })

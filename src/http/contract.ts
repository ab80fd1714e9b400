import fp from 'fastify-plugin'
import { parseJsonBody } from '../contract/exact-json.js'
import { validatorCompiler } from '../contract/validators.js'

/**
 * Requests are checked against openapi/plantstore.yaml: bodies are parsed without losing int64 digits,
 * and every schema the routes take from the document is compiled by our validator compiler.
 * Only application/json bodies are accepted; anything else is 415 (code 1002). A request that says
 * application/json but sends no body has no body: a DELETE is served, a create is 400 "body is
 * required" (its schema asks for one), as many clients send the header on every request.
 */
export default fp<{ bodyLimit: number }>(async (app, { bodyLimit }) => {
  app.setValidatorCompiler(validatorCompiler)
  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit }, parseJsonBody)
}, { name: 'contract' })

import cluster from 'node:cluster'
import type { Command } from 'commander'
import { loadConfig, SETTINGS } from '../config.js'
import type { RawConfig } from '../config.js'
import { generateToken, hashToken } from '../tokens.js'
import { DEFAULT_SCOPES } from '../store/store.js'
import { runPrimary } from './cluster.js'
import { settingOption } from './options.js'

export function registerServe (program: Command) {
  const serve = program.command('serve').description('run the HTTP service')
  for (const setting of Object.keys(SETTINGS) as Array<keyof RawConfig>) serve.addOption(settingOption(setting))
  serve
    .action(async (raw: RawConfig) => {
      const config = loadConfig(raw)
      if (config.workers > 1 && cluster.isPrimary) return runPrimary(config.workers)
      // The server (Fastify and everything it loads) only for this command: the others start in a blink.
      const [{ buildApp }, { listen }] = await Promise.all([import('../app.js'), import('../server.js')])
      const app = await buildApp(config)
      // Created before listening, so no request can find a store without tokens; printed after, with the real port.
      const firstToken = generateToken()
      const created = await app.store.tokens.createFirst({
        name: 'default', hash: hashToken(firstToken), scopes: [...DEFAULT_SCOPES], expiresAt: null
      })
      try {
        const url = await listen(app, config)
        if (created) printFirstToken(firstToken, url)
      } catch (error) {
        await app.close()
        throw error
      }
    })
}

function printFirstToken (token: string, url: URL) {
  process.stderr.write(`
Plant Store created its first API token, named "default". It is shown only this once: keep it secret.

  ${token}

Add a plant:

  curl -X POST ${url.origin}/plants -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' -d '{"id": 1, "name": "Monstera", "tag": "tropical"}'

More tokens: plantstore tokens create --name NAME

`)
}

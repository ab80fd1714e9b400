import cluster from 'node:cluster'
import { rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import type { Command } from 'commander'
import { loadConfig, SETTINGS } from '../config/config.js'
import type { Config, RawConfig } from '../config/config.js'
import { generateToken } from '../auth/tokens.js'
import { DEFAULT_SCOPES, hashToken } from '../store/store.js'
import { runPrimary } from './cluster.js'
import { settingOption } from './options.js'
import { startTracing, tracesRequested } from '../telemetry/tracing.js'

export function registerServe (program: Command) {
  const serve = program.command('serve').description('run the HTTP service')
  for (const setting of Object.keys(SETTINGS) as Array<keyof RawConfig>) serve.addOption(settingOption(setting))
  serve
    .action(async (raw: RawConfig) => {
      const config = loadConfig(raw)
      if (config.workers > 1 && cluster.isPrimary) return runPrimary(config.workers)
      // Traces only when the OTEL_* settings ask, and started before the store's drivers load.
      const tracing = tracesRequested() ? await startTracing({ postgres: config.database.kind === 'postgres' }) : undefined
      // The server (Fastify and everything it loads) only for this command: the others start in a blink.
      const [{ buildApp }, { listen }] = await Promise.all([import('../http/app.js'), import('../http/server.js')])
      const app = await buildApp(config, { tracing, warmDatabase: true })
      // Created before listening, so no request can find a store without tokens; printed after, with the real port.
      const firstToken = generateToken()
      const created = await app.store.tokens.createFirst({
        name: 'default', hash: hashToken(firstToken), scopes: [...DEFAULT_SCOPES], expiresAt: null
      })
      try {
        const url = await listen(app, config)
        if (created) {
          const file = handOverFirstToken(firstToken, url, config)
          if (file !== undefined) app.log.warn({ file }, 'first API token written to this file, readable by its owner only: read it, keep the token, delete the file')
        }
      } catch (error) {
        await app.close()
        throw error
      }
    })
}

/**
 * The first token goes to a person: to the terminal when stderr is one; otherwise (a service manager,
 * a container whose logs are kept) to a file only its owner can read, never into a log. Answers the
 * file's path when it wrote one.
 */
function handOverFirstToken (token: string, url: URL, config: Config): string | undefined {
  if (process.stderr.isTTY === true) {
    process.stderr.write(firstTokenText(token, url))
    return undefined
  }
  const beside = config.database.kind === 'sqlite' && config.database.path !== ':memory:' ? dirname(config.database.path) : '.'
  const file = resolve(config.firstTokenFile ?? join(beside, 'first-token'))
  // Made anew, never written into a file that exists: an old one could be readable by others.
  rmSync(file, { force: true })
  writeFileSync(file, firstTokenText(token, url), { mode: 0o600, flag: 'wx' })
  return file
}

function firstTokenText (token: string, url: URL): string {
  return `
Plant Store created its first API token, named "default". It is shown only this once: keep it secret.

  ${token}

Add a plant:

  curl -X POST ${url.origin}/plants -H 'Authorization: Bearer ${token}' -H 'Content-Type: application/json' -d '{"id": 1, "name": "Monstera", "tag": "tropical"}'

More tokens: plantstore tokens create --name NAME

`
}

import cluster from 'node:cluster'
import type { Command } from 'commander'
import { buildApp } from '../app.js'
import { loadConfig } from '../config.js'
import type { RawConfig } from '../config.js'
import { listen } from '../server.js'
import { generateToken, hashToken } from '../tokens.js'
import { SCOPES } from '../store/store.js'
import { runPrimary } from './cluster.js'
import { settingOption, databaseOption } from './options.js'

export function registerServe (program: Command) {
  program.command('serve')
    .description('run the HTTP service')
    .addOption(settingOption('host', 'host', 'address to listen on'))
    .addOption(settingOption('port', 'port', 'port to listen on'))
    .addOption(databaseOption())
    .addOption(settingOption('databasePoolSize', 'n', 'PostgreSQL connections per process'))
    .addOption(settingOption('logLevel', 'level', 'fatal, error, warn, info, debug, trace or silent'))
    .addOption(settingOption('bodyLimit', 'bytes', 'largest request body'))
    .addOption(settingOption('sqliteSynchronous', 'mode', 'SQLite synchronous pragma: FULL, EXTRA, NORMAL or OFF'))
    .addOption(settingOption('webhookTimeout', 'duration', 'how long one webhook attempt may take'))
    .addOption(settingOption('webhookConcurrency', 'n', 'webhook deliveries in flight per subscriber'))
    .addOption(settingOption('webhookRetryBase', 'duration', 'wait before the first webhook retry; doubles after each'))
    .addOption(settingOption('webhookGiveUpAfter', 'duration', 'give up an undelivered webhook this long after its event'))
    .addOption(settingOption('workers', 'n', 'processes sharing the port (node:cluster)'))
    .action(async (raw: RawConfig) => {
      const config = loadConfig(raw)
      if (config.workers > 1 && cluster.isPrimary) return runPrimary(config.workers)
      const app = await buildApp(config)
      // Created before listening, so no request can find a store without tokens; printed after, with the real port.
      const firstToken = generateToken()
      const created = await app.store.createFirstToken({
        name: 'default', hash: hashToken(firstToken), scopes: [...SCOPES], expiresAt: null
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

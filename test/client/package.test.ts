import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { workdir } from '../executable.js'
import { build, createToken } from '../helper.js'

const exec = promisify(execFile)
const root = fileURLToPath(new URL('../../', import.meta.url))

test('@plantstore/client packs, installs on its own with at most 3 dependencies, and calls a running server', { timeout: 120_000 }, async (t) => {
  const packs = join(workdir, 'packs')
  const project = join(workdir, 'client-user')
  mkdirSync(packs, { recursive: true })
  mkdirSync(project, { recursive: true })
  await exec('npm', ['pack', '-w', '@plantstore/client', '--pack-destination', packs, '--silent'], { cwd: root })
  const tarball = join(packs, readdirSync(packs).find((name) => name.endsWith('.tgz'))!)

  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'client-user', private: true, type: 'module' }))
  await exec('npm', ['install', tarball, '--no-audit', '--no-fund', '--prefer-offline', '--silent'], { cwd: project })
  const installed = (await exec('npm', ['ls', '--all', '--parseable'], { cwd: project })).stdout.trim().split('\n').slice(1)
  const dependencies = installed.filter((path) => !path.endsWith(join('@plantstore', 'client')))
  assert.ok(dependencies.length <= 3, `installs ${dependencies.join(', ')}`)
  assert.ok(!dependencies.some((path) => /fastify|[/\\]pg$|sqlite/.test(path)), 'nothing of the server')

  const app = await build(t)
  const token = await createToken(app)
  const url = await app.listen({ host: '127.0.0.1', port: 0 })
  writeFileSync(join(project, 'use.mjs'), `
import { createPlantStoreClient, PlantStoreError } from '@plantstore/client'
const client = createPlantStoreClient({ baseUrl: process.argv[2], token: process.argv[3] })
const created = await client.createPlant({ id: 9223372036854775807n, name: 'Monstera' })
const { plant } = await client.getPlant(created.id)
let status
try { await client.getPlant(1n) } catch (error) { status = error instanceof PlantStoreError ? error.status : 'other' }
console.log(JSON.stringify({ id: String(plant.id), name: plant.name, status }))
`)
  const { stdout } = await exec(process.execPath, ['use.mjs', url, token], { cwd: project })
  assert.deepEqual(JSON.parse(stdout), { id: '9223372036854775807', name: 'Monstera', status: 404 })
})

// The tables of docs/configuration.md and docs/errors.md, made from src/config/settings.ts and src/contract/errors.ts:
// `npm run docs:tables` writes them between their markers; test/docs-tables.test.ts fails when they differ.
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { SETTINGS } from '../src/config/config.js'
import { ERROR_TABLE } from '../src/contract/errors.js'

const cell = (text: string) => text === '' ? '' : `\`${text}\``

export function configurationTable (): string {
  const rows = Object.values(SETTINGS).map(({ flag, env, fallback, help }) => `| ${cell(flag)} | ${cell(env)} | ${cell(fallback)} | ${help} |`)
  return ['| flag | environment | default | meaning |', '|---|---|---|---|', ...rows].join('\n')
}

export function errorTable (): string {
  const rows = ERROR_TABLE.map(({ code, status, meaning }) => `| ${code} | ${status} | ${meaning} |`)
  return ['| code | status | meaning |', '|---|---|---|', ...rows].join('\n')
}

/** The docs pages and their generated parts. */
export const GENERATED = { 'docs/configuration.md': configurationTable, 'docs/errors.md': errorTable }

const root = new URL('../', import.meta.url)
const START = '<!-- generated: npm run docs:tables -->'
const END = '<!-- end of generated -->'

/** The page's text with its generated part made anew. */
export function withTable (page: string, table: string): string {
  const start = page.indexOf(START)
  const end = page.indexOf(END)
  if (start < 0 || end < start) throw new Error(`the page has no ${START} … ${END} markers`)
  return `${page.slice(0, start + START.length)}\n${table}\n${page.slice(end)}`
}

export const readPage = (path: string) => readFileSync(new URL(path, root), 'utf8')

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const [path, table] of Object.entries(GENERATED)) writeFileSync(new URL(path, root), withTable(readPage(path), table()))
}

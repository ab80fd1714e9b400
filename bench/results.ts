import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'

/**
 * Writes one bench's latest figures over bench/results/<name>.md (history lives in git), and into
 * bench/README.md between its `<!-- results:<name> -->` and `<!-- /results:<name> -->` markers (a
 * shorter summary there when one is given).
 */
export function writeResults (name: string, markdown: string, summary = markdown) {
  mkdirSync(new URL('results/', import.meta.url), { recursive: true })
  writeFileSync(new URL(`results/${name}.md`, import.meta.url), markdown)
  const readme = new URL('README.md', import.meta.url)
  const text = readFileSync(readme, 'utf8')
  const [open, close] = [`<!-- results:${name} -->`, `<!-- /results:${name} -->`]
  const [from, to] = [text.indexOf(open), text.indexOf(close)]
  if (from === -1 || to < from) return
  writeFileSync(readme, `${text.slice(0, from + open.length)}\n${summary.trim()}\n${text.slice(to)}`)
}

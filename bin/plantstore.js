#!/usr/bin/env -S node --max-semi-space-size=8 --no-allocation-site-pretenuring
// The executable's entry: plain JavaScript that any Node parses, so that an unsupported Node is told so in
// one line before the SQLite addon, built for another Node, is loaded and crashes the process.
const major = Number(process.versions.node.split('.')[0])
if (major < 22) {
  process.stderr.write(`plantstore needs Node.js 22 or later; this is ${process.versions.node}\n`)
  process.exit(1)
}
await import('../dist/cli/main.js')

/**
 * tsx bench/without-tracing.ts DIR: builds this checkout's HEAD into DIR with the tracing code taken off
 * the request path, the build that "traces off" is compared with (`npm run bench -- --baseline DIR`).
 * With traces off the service only passes `undefined` along; this shows what that costs. Each cut must
 * find its text: when the code it cuts changes, the script stops and names the file.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { baselineLabel, root } from './servers.js'

const dir = process.argv[2]
if (dir === undefined || existsSync(dir)) throw new Error('usage: tsx bench/without-tracing.ts DIR (a folder that does not exist yet)')

/** [file, text, replacement]: the replacement keeps each parameter used, so the build still type-checks. */
const cuts: Array<[string, RegExp | string, string]> = [
  ['src/cli/serve.ts', "import { startTracing, tracesRequested } from '../telemetry/tracing.js'\n", ''],
  ['src/cli/serve.ts', /const tracing = tracesRequested\(\)[^\n]*/, 'const tracing = undefined'],
  ['src/http/app.ts', / {2}if \(options\.tracing !== undefined\) \{\n[^}]*\}\n/, ''],
  ['src/telemetry/timed-store.ts', "import { traced } from './tracing.js'\n", ''],
  ['src/telemetry/timed-store.ts', /return tracing === undefined \? timedCall : [^\n]*/, 'void tracing; void system; return timedCall'],
  ['src/events/fan-out.ts', / {2}if \(spans === undefined[\s\S]*\}, write\)\n/, '  void spans; void MAX_LINKS; write()\n'],
  ['src/store/sqlite/plants.ts', "import { traceOrigin } from '../../lib/trace-context.js'", 'const traceOrigin = (): string | undefined => undefined'],
  ['src/store/postgres/plants.ts', "import { traceOrigin } from '../../lib/trace-context.js'", 'const traceOrigin = (): string | undefined => undefined']
]

mkdirSync(dir, { recursive: true })
execFileSync('tar', ['-x', '-C', dir], { input: execFileSync('git', ['-C', root, 'archive', 'HEAD'], { maxBuffer: 1 << 30 }) })
for (const [file, text, replacement] of cuts) {
  const path = join(dir, file)
  const source = readFileSync(path, 'utf8')
  const cut = source.replace(text, replacement)
  if (cut === source) throw new Error(`${file}: the text to cut is not there any more (${String(text)}); update bench/without-tracing.ts`)
  writeFileSync(path, cut)
}
writeFileSync(join(dir, 'BASELINE'), `${baselineLabel(root)} without tracing\n`)
execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' })
execFileSync('npm', ['run', 'build'], { cwd: dir, stdio: 'inherit' })
process.stdout.write(`built without tracing: npm run bench -- --baseline ${dir} --only 'GET /plants/{id}' --only 'create (unique ids)'\n`)

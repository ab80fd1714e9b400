// tsc compiles only TypeScript; the SQL migrations and the docs page's logo travel beside the compiled code.
// Copied over a clean folder: a migration removed or renamed in src must not stay in dist and run.
import { cpSync, rmSync } from 'node:fs'

for (const [from, to] of [['src/store/migrations', 'dist/store/migrations'], ['src/docs', 'dist/docs']]) {
  rmSync(to, { recursive: true, force: true })
  cpSync(from, to, { recursive: true })
}

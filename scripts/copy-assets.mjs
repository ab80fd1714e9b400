// tsc compiles only TypeScript; the SQL migrations and the docs page's logo travel beside the compiled code.
import { cpSync } from 'node:fs'

cpSync('src/store/migrations', 'dist/store/migrations', { recursive: true })
cpSync('src/docs', 'dist/docs', { recursive: true })

// tsc compiles only TypeScript; the SQL migrations travel beside the compiled store.
import { cpSync } from 'node:fs'

cpSync('src/store/migrations', 'dist/store/migrations', { recursive: true })

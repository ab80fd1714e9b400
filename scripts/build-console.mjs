// The operator console (console/): one ES module bundled and minified by esbuild, its page, styles
// and icon copied beside it into dist/console, which the service serves at /console.
import { copyFileSync, mkdirSync } from 'node:fs'
import { build } from 'esbuild'

mkdirSync('dist/console', { recursive: true })
await build({
  entryPoints: ['console/src/main.tsx'],
  outfile: 'dist/console/console.js',
  bundle: true,
  minify: true,
  format: 'esm',
  target: 'es2022',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  tsconfig: 'console/tsconfig.json',
  legalComments: 'none',
  logLevel: 'warning'
})
copyFileSync('console/index.html', 'dist/console/index.html')
copyFileSync('console/console.css', 'dist/console/console.css')
copyFileSync('src/docs/logo.svg', 'dist/console/logo.svg')

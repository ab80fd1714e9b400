import neostandard from 'neostandard'

export default [
  ...neostandard({ ts: true, ignores: ['dist/**', 'bench/results/**', 'test-output/**', 'packages/client/src/openapi-types.ts', 'packages/client/dist/**'] })
]

import neostandard from 'neostandard'

export default [
  ...neostandard({ ts: true, ignores: ['dist/**', 'bench/results/**', 'test-output/**', 'src/client/openapi-types.ts'] })
]

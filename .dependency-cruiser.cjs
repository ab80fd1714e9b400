// The import rules of src/ (docs/development.md): no cycles, and dependencies that run one way,
// cli → http → routes → auth, telemetry → events, webhooks → store → contract → lib, with config a leaf
// beside them. `npm run lint` runs this; a broken rule fails it.
const layer = (name) => `^src/${name}/`
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'modules that import each other cannot be read or loaded one at a time', from: { path: '^src/' }, to: { circular: true } },
    { name: 'lib-knows-nothing', severity: 'error', comment: 'lib/ holds general pieces with no project knowledge', from: { path: layer('lib') }, to: { path: '^src/', pathNot: layer('lib') } },
    { name: 'contract-imports-only-lib', severity: 'error', from: { path: layer('contract') }, to: { path: '^src/', pathNot: [layer('contract'), layer('lib')] } },
    { name: 'config-is-a-leaf', severity: 'error', from: { path: layer('config') }, to: { path: '^src/', pathNot: [layer('config'), layer('lib')] } },
    { name: 'store-knows-no-caller', severity: 'error', comment: 'the store knows nothing of HTTP, auth, events or webhooks', from: { path: layer('store') }, to: { path: '^src/(http|routes|auth|telemetry|events|webhooks|cli)/' } },
    { name: 'webhooks-through-the-store-interface', severity: 'error', comment: 'webhooks/ and events/ reach the store through store.ts (and open it with open-store.ts)', from: { path: '^src/(webhooks|events)/' }, to: { path: layer('store'), pathNot: '^src/store/(store|open-store)\\.ts$' } },
    { name: 'consumers-below-the-edge', severity: 'error', from: { path: '^src/(webhooks|events)/' }, to: { path: '^src/(http|routes|auth|telemetry|cli)/' } },
    { name: 'auth-and-telemetry-below-routes', severity: 'error', from: { path: '^src/(auth|telemetry)/' }, to: { path: '^src/(http|routes|cli)/' } },
    { name: 'routes-below-http', severity: 'error', from: { path: layer('routes') }, to: { path: '^src/(http|cli)/' } },
    { name: 'http-below-cli', severity: 'error', from: { path: layer('http') }, to: { path: layer('cli') } }
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' }
  }
}

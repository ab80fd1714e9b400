import assert from 'node:assert/strict'

/** Checks the Prometheus text exposition format line by line, and answers the samples by series. */
export function parsePrometheus (text: string): Map<string, number> {
  const samples = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (line === '') continue
    if (line.startsWith('#')) {
      assert.match(line, /^# (HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*|TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge|histogram|summary|untyped))$/, line)
      continue
    }
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})?) (-?[0-9.e+-]+|NaN|\+Inf|-Inf)$/i.exec(line)
    assert.ok(match, `not a sample line: ${line}`)
    samples.set(match[1]!, Number(match[2]))
  }
  return samples
}

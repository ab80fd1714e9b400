/**
 * Counters and histograms for the request path: each label set's numbers are plain fields, found by
 * one Map lookup, and put into prom-client's shape only when /metrics is scraped (prom-client hashes
 * and validates the labels on every inc() and observe(), which cost more than the request's own
 * bookkeeping; the cost ladder in `npm run bench` showed it). Registered in the same prom-client
 * Registry as every other metric, so the exposition is the same.
 */

interface Sample { labels: Record<string, string | number>, value: number, metricName?: string }

/** One label set of a LeanHistogram: `observe` is a bucket search and three additions. */
export class HistogramSeries {
  readonly labels: Record<string, string>
  readonly counts: Float64Array
  sum = 0
  count = 0
  readonly #bounds: readonly number[]

  constructor (labels: Record<string, string>, bounds: readonly number[]) {
    this.labels = labels
    this.#bounds = bounds
    this.counts = new Float64Array(bounds.length)
  }

  observe (value: number) {
    this.sum += value
    this.count++
    const bounds = this.#bounds
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.counts[i]!++
        return
      }
    }
  }
}

/** A histogram whose series are kept by the caller once found (or by `series()` per call). */
export class LeanHistogram {
  readonly type = 'histogram'
  readonly name: string
  readonly help: string
  readonly #labelNames: readonly string[]
  readonly #bounds: readonly number[]
  readonly #series = new Map<string, HistogramSeries>()

  constructor (name: string, help: string, labelNames: readonly string[], buckets: readonly number[]) {
    this.name = name
    this.help = help
    this.#labelNames = labelNames
    this.#bounds = [...buckets].sort((a, b) => a - b)
  }

  /** The series of these label values (in labelNames' order), made on first use. */
  series (...values: string[]): HistogramSeries {
    const key = values.join('\u0000')
    let series = this.#series.get(key)
    if (series === undefined) {
      series = new HistogramSeries(Object.fromEntries(this.#labelNames.map((name, i) => [name, values[i]!])), this.#bounds)
      this.#series.set(key, series)
    }
    return series
  }

  seriesList (): HistogramSeries[] {
    return [...this.#series.values()]
  }

  /** prom-client's Metric interface: the series as cumulative buckets, sum and count. */
  async get () {
    const values: Sample[] = []
    for (const series of this.#series.values()) {
      let cumulative = 0
      this.#bounds.forEach((bound, i) => {
        cumulative += series.counts[i]!
        values.push({ metricName: `${this.name}_bucket`, labels: { ...series.labels, le: bound }, value: cumulative })
      })
      values.push({ metricName: `${this.name}_bucket`, labels: { ...series.labels, le: '+Inf' }, value: series.count })
      values.push({ metricName: `${this.name}_sum`, labels: series.labels, value: series.sum })
      values.push({ metricName: `${this.name}_count`, labels: series.labels, value: series.count })
    }
    return { name: this.name, help: this.help, type: this.type, values, aggregator: 'sum' as const }
  }

  reset () {
    this.#series.clear()
  }
}

/** A counter read from somewhere else when scraped (a histogram's counts, or two plain numbers). */
export class DerivedMetric {
  readonly name: string
  readonly help: string
  readonly type: 'counter' | 'gauge'
  readonly #read: () => Sample[]

  constructor (name: string, help: string, type: 'counter' | 'gauge', read: () => Sample[]) {
    this.name = name
    this.help = help
    this.type = type
    this.#read = read
  }

  async get () {
    return { name: this.name, help: this.help, type: this.type, values: this.#read(), aggregator: 'sum' as const }
  }

  reset () {}
}

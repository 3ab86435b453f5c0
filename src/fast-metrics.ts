// Per-request counters and histograms whose labelled series are resolved once: an observation is a few array
// writes. prom-client's own classes hash and validate the label object on every call (about a microsecond each,
// four times per request); these hand the same data to prom-client's registry at scrape time, in its metric shape.
import type { Registry } from 'prom-client';

interface Value { labels: Record<string, string | number>; value: number; metricName?: string }
interface Series { labels: Record<string, string>; counts: number[]; sum: number; count: number }

abstract class FastMetric<S> {
  readonly aggregator = 'sum';
  protected readonly series = new Map<string, S>();

  constructor(readonly name: string, readonly help: string, private readonly labelNames: string[], registry: Registry) {
    registry.registerMetric(this as never);
  }

  protected seriesFor(values: string[], make: (labels: Record<string, string>) => S): S {
    const key = values.join('\u0000');
    let s = this.series.get(key);
    if (!s) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((n, i) => { labels[n] = values[i]; });
      s = make(labels);
      this.series.set(key, s);
    }
    return s;
  }
}

export class FastCounter extends FastMetric<{ labels: Record<string, string>; value: number }> {
  readonly type = 'counter';

  /** The series for these label values, in `labelNames` order; keep it and call `inc` on it. */
  child(...values: string[]): { inc(n?: number): void } {
    const s = this.seriesFor(values, (labels) => ({ labels, value: 0 }));
    return { inc: (n = 1) => { s.value += n; } };
  }

  get(): { name: string; help: string; type: string; aggregator: string; values: Value[] } {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: [...this.series.values()].map((s) => ({ labels: s.labels, value: s.value })) };
  }
}

export class FastHistogram extends FastMetric<Series> {
  readonly type = 'histogram';

  constructor(name: string, help: string, labelNames: string[], private readonly bounds: number[], registry: Registry) {
    super(name, help, labelNames, registry);
  }

  child(...values: string[]): { observe(v: number): void } {
    const s = this.seriesFor(values, (labels) => ({ labels, counts: new Array<number>(this.bounds.length).fill(0), sum: 0, count: 0 }));
    const bounds = this.bounds;
    return {
      observe: (v: number) => {
        if (!Number.isFinite(v)) return;
        s.sum += v;
        s.count++;
        for (let i = 0; i < bounds.length; i++) if (v <= bounds[i]) { s.counts[i]++; break; }
      },
    };
  }

  get(): { name: string; help: string; type: string; aggregator: string; values: Value[] } {
    const values: Value[] = [];
    for (const s of this.series.values()) {
      let acc = 0;
      this.bounds.forEach((le, i) => {
        acc += s.counts[i];
        values.push({ labels: { le, ...s.labels }, value: acc, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: '+Inf', ...s.labels }, value: s.count, metricName: `${this.name}_bucket` },
        { labels: s.labels, value: s.sum, metricName: `${this.name}_sum` },
        { labels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }
}

// Per-request counters and histograms whose labelled series are resolved once: an observation is a few array
// writes. (prom-client's classes hash and validate the label object on every call, about a microsecond each, four
// times per request.) They render their own Prometheus text at scrape time, next to prom-client's registry.

interface Series { labels: string; counts: number[]; sum: number; count: number; value: number }

abstract class FastMetric {
  protected readonly series = new Map<string, Series>();

  constructor(readonly name: string, readonly help: string, private readonly labelNames: string[], set: FastMetric[]) {
    set.push(this);
  }

  abstract render(): string;

  protected seriesFor(values: string[], buckets = 0): Series {
    const key = values.join('\u0000');
    let s = this.series.get(key);
    if (!s) {
      const labels = this.labelNames.map((n, i) => `${n}="${escape(values[i])}"`).join(',');
      s = { labels, counts: new Array<number>(buckets).fill(0), sum: 0, count: 0, value: 0 };
      this.series.set(key, s);
    }
    return s;
  }

  protected head(type: string): string {
    return `# HELP ${this.name} ${this.help}\n# TYPE ${this.name} ${type}\n`;
  }
}

export class FastCounter extends FastMetric {
  /** The series for these label values, in `labelNames` order; keep it and call `inc` on it. */
  child(...values: string[]): { inc(n?: number): void } {
    const s = this.seriesFor(values);
    return { inc: (n = 1) => { s.value += n; } };
  }

  render(): string {
    let out = this.head('counter');
    for (const s of this.series.values()) out += `${this.name}${braces(s.labels)} ${s.value}\n`;
    return out;
  }
}

export class FastHistogram extends FastMetric {
  constructor(name: string, help: string, labelNames: string[], private readonly bounds: number[], set: FastMetric[]) {
    super(name, help, labelNames, set);
  }

  child(...values: string[]): { observe(v: number): void } {
    const s = this.seriesFor(values, this.bounds.length);
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

  render(): string {
    let out = this.head('histogram');
    for (const s of this.series.values()) {
      const sep = s.labels ? ',' : '';
      let acc = 0;
      this.bounds.forEach((le, i) => {
        acc += s.counts[i];
        out += `${this.name}_bucket{${s.labels}${sep}le="${le}"} ${acc}\n`;
      });
      out += `${this.name}_bucket{${s.labels}${sep}le="+Inf"} ${s.count}\n${this.name}_sum${braces(s.labels)} ${s.sum}\n${this.name}_count${braces(s.labels)} ${s.count}\n`;
    }
    return out;
  }
}

export type { FastMetric };

const braces = (labels: string) => (labels ? `{${labels}}` : '');
const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

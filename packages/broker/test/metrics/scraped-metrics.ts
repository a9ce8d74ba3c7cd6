import parsePrometheusTextFormat, { ParsedFamily, ParsedSample } from 'parse-prometheus-text-format';

/**
 * A scrape parsed by a real Prometheus text-format parser, with lookups by name and labels. The parser folds a
 * histogram's samples into one and drops their labels (`topic`), so the text is parsed twice: as it is, for the
 * types, and without the histograms' HELP and TYPE lines, which leaves each `_count`, `_sum` and `_bucket` series
 * an untyped family of its own, labels and all.
 */
export class ScrapedMetrics {
  private readonly typed: Map<string, ParsedFamily>;
  private readonly families: Map<string, ParsedFamily>;

  constructor(text: string) {
    this.typed = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
    const histograms = new Set([...this.typed.values()].filter((family) => family.type === 'HISTOGRAM').map((family) => family.name));
    const flat = text
      .split('\n')
      .filter((line) => !/^# (HELP|TYPE) /.test(line) || !histograms.has(line.split(' ')[2]))
      .join('\n');
    // prom-client writes a histogram series by series (buckets, sum, count of one label set, then the next), so each
    // untyped `_count` family comes in pieces.
    this.families = new Map();
    for (const family of parsePrometheusTextFormat(flat)) {
      const known = this.families.get(family.name);
      if (known) known.metrics.push(...family.metrics);
      else this.families.set(family.name, family);
    }
  }

  has(name: string): boolean {
    return this.typed.has(name);
  }

  type(name: string): ParsedFamily['type'] | undefined {
    return this.typed.get(name)?.type;
  }

  /** The value of the one sample of `name` whose labels include `labels`; fails the test when there is none. */
  value(name: string, labels: Record<string, string> = {}): number {
    return Number(this.sample(name, labels).value);
  }

  /** The observation count of a histogram's series with these labels. */
  count(name: string, labels: Record<string, string> = {}): number {
    if (this.type(name) !== 'HISTOGRAM') throw new Error(`${name} is not a histogram`);
    return this.value(`${name}_count`, labels);
  }

  /** Every label set of `name`. */
  labels(name: string): Array<Record<string, string>> {
    return (this.families.get(name)?.metrics ?? []).map((sample) => sample.labels ?? {});
  }

  private sample(name: string, labels: Record<string, string>): ParsedSample {
    const family = this.families.get(name);
    if (!family) throw new Error(`No metric ${name} in the scrape`);
    const matches = family.metrics.filter((sample) => Object.entries(labels).every(([key, value]) => sample.labels?.[key] === value));
    if (matches.length !== 1) throw new Error(`${matches.length} samples of ${name} match ${JSON.stringify(labels)}`);
    return matches[0];
  }
}

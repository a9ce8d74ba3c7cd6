/** The pieces of a line of the Prometheus text format 0.0.4, written as prom-client writes them. */

/** `name="value"` pairs, comma-separated, in the object's order; undefined values left out. */
export function formatLabels(labels: object): string {
  return Object.entries(labels)
    .filter(([, label]) => label !== undefined)
    .map(([label, text]) => `${label}="${escapeLabelValue(String(text))}"`)
    .join(',');
}

export function valueText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value < 0 ? '-Inf' : '+Inf';
  return `${value}`;
}

export function escapeHelp(text: string): string {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function escapeLabelValue(text: string): string {
  return escapeHelp(text).replace(/"/g, '\\"');
}

/** One line: `name{labels} value`. */
export function line(name: string, labels: object, value: number): string {
  const pairs = formatLabels(labels);
  return `${name}${pairs === '' ? '' : `{${pairs}}`} ${valueText(value)}`;
}

import Table from 'cli-table3';
import type { CliIo } from './cli-io';

/** The options every command shares (global options of the program). */
export interface GlobalOptions {
  broker: string;
  token?: string;
  json?: boolean;
}

/** Writes `value` as one JSON document (for scripts, `--json`). */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

/** Writes rows as a table with a header line; an empty list says so instead. */
export function printTable(io: CliIo, head: string[], rows: unknown[][], empty = '(none)'): void {
  if (rows.length === 0) {
    io.stdout.write(empty + '\n');
    return;
  }
  const table = new Table({ head, style: { head: [], border: [] } });
  for (const row of rows) table.push(row.map(cell));
  io.stdout.write(table.toString() + '\n');
}

/** Writes `key: value` lines as a two-column table. */
export function printRecord(io: CliIo, record: Record<string, unknown>): void {
  const table = new Table({ style: { head: [], border: [] } });
  for (const [key, value] of Object.entries(record)) table.push({ [key]: cell(value) });
  io.stdout.write(table.toString() + '\n');
}

function cell(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

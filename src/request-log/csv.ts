// Request records as CSV rows (RFC 4180): one column a field of the record, in the schema's order; nested values
// (attempts, usage, charge lines, price options) as their JSON text, so a spreadsheet gets every field.
import type { RequestRecord } from './log-store.js';

const columns: (keyof RequestRecord)[] = [
  'id', 'kind', 'at', 'started_at', 'token', 'user', 'group', 'route', 'method', 'path', 'model', 'served_model', 'channel',
  'attempts', 'status', 'error_code', 'outcome', 'reason', 'usage', 'usage_estimated', 'units', 'task', 'reserved', 'charged',
  'uncharged', 'vendor_charged', 'charge_lines', 'tier', 'price', 'latency_ms', 'first_byte_ms', 'client',
];

export const csvHeader = () => `${columns.join(',')}\r\n`;

export const csvRow = (r: RequestRecord) => `${columns.map((c) => csvCell(r[c])).join(',')}\r\n`;

/** One value as a CSV cell: quoted where it must be, a formula-like string kept as text. */
export function csvCell(v: unknown): string {
  if (v === undefined || v === null) return '';
  let text = typeof v === 'object' ? JSON.stringify(v) : String(v);
  // A client's string that a spreadsheet would run as a formula (a model named `=HYPERLINK(…)`) is kept as text.
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

// How keyv records are written and read: byte for byte what keyv's own serializer (@keyv/serialize) writes, and
// what its deserializer reads, in a third of their time. They walk every value in JavaScript (the reader through a
// JSON.parse reviver), and a kept conversation is a whole history (hundreds of KB, on every turn). The format is
// JSON with two marks: a string that starts with ':' gets one more ':', and a Buffer is written as the string
// ':base64:…'. Where neither occurs, JSON.stringify and JSON.parse do the same, and the text shows whether one does:
// a string opening with ':' (first, or after '[', ',', ':' or '{') or a Buffer's JSON shape. Only then are the
// marks written or read. Stored values are JSON data (never functions).

// Spaces allowed: JSON.stringify writes none, but a record may have been written by another tool.
const marked = /^\s*":|[[,:{]\s*":|\{"type":"Buffer","data":\[/;

export function serializeKv(data: unknown): string {
  const plain = JSON.stringify(data);
  if (plain === undefined) return 'null';
  return marked.test(plain) ? JSON.stringify(data, withMarks) : plain;
}

/** A record as keyv's deserializer reads it: strings lose their extra ':', ':base64:' strings become Buffers. */
export function deserializeKv<T>(text: string): T {
  return (marked.test(text) ? JSON.parse(text, withoutMarks) : JSON.parse(text)) as T;
}

function withoutMarks(_key: string, value: unknown): unknown {
  if (typeof value !== 'string' || !value.startsWith(':')) return value;
  return value.startsWith(':base64:') ? Buffer.from(value.slice(8), 'base64') : value.slice(1);
}

/** keyv's marks; `this` is the holder, whose own value is still a Buffer where toJSON made it an object. */
function withMarks(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const original = this[key];
  if (Buffer.isBuffer(original)) return `:base64:${original.toString('base64')}`;
  return typeof value === 'string' && value.startsWith(':') ? `:${value}` : value;
}

// How keyv records are written: byte for byte what keyv's own serializer (@keyv/serialize) writes, in a third of
// its time. It walks every value in JavaScript, and a kept conversation is a whole history (hundreds of KB, written
// on every turn). Its format is JSON with two marks: a string that starts with ':' gets one more ':', and a Buffer
// is written as the string ':base64:…'. Where neither occurs JSON.stringify writes the same text, and that text
// shows whether one does: a string opening with ':' (first, or after '[', ',', ':' or '{') or a Buffer's JSON
// shape. Only then is the value written again with the marks. Stored values are JSON data (never functions);
// keyv's own deserializer reads both.

const marked = /^":|[[,:{]":|\{"type":"Buffer","data":\[/;

export function serializeKv(data: unknown): string {
  const plain = JSON.stringify(data);
  if (plain === undefined) return 'null';
  return marked.test(plain) ? JSON.stringify(data, withMarks) : plain;
}

/** keyv's marks; `this` is the holder, whose own value is still a Buffer where toJSON made it an object. */
function withMarks(this: Record<string, unknown>, key: string, value: unknown): unknown {
  const original = this[key];
  if (Buffer.isBuffer(original)) return `:base64:${original.toString('base64')}`;
  return typeof value === 'string' && value.startsWith(':') ? `:${value}` : value;
}

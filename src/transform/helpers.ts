// Vendor-neutral JSONata functions available to every transform.
import { randomUUID } from 'node:crypto';
import { isFile, isSpooled } from '../http/multipart.js';
import { base64Of } from './uploads.js';

export const helperFunctions: Record<string, { impl: (...args: any[]) => unknown; signature?: string }> = {
  // Unix seconds now; vendors disagree on time units, transforms convert with this.
  nowSeconds: { impl: () => Math.floor(Date.now() / 1000), signature: '<:n>' },
  uuid: { impl: () => randomUUID(), signature: '<:s>' },
  // A data: URI becomes a file part for multipart vendors; URLs and file parts pass through.
  toFile: {
    impl: (v: unknown, name?: string) => {
      if (typeof v !== 'string') return v;
      const m = /^data:([\w.+-]+\/[\w.+-]+)?(;base64)?,(.*)$/s.exec(v);
      if (!m) return v;
      const data = m[2] ? m[3] : Buffer.from(decodeURIComponent(m[3])).toString('base64');
      const type = m[1] ?? 'application/octet-stream';
      return { filename: `${name ?? 'file'}.${type.split('/')[1] ?? 'bin'}`, content_type: type, size: Math.floor((data.length * 3) / 4), data };
    },
    signature: '<x-s?:x>',
  },
  // A file's bytes as base64, for vendors that take them bare inside JSON: a data URI's data (the form a JSON vendor's
  // transform sees a client's file in, src/transform/uploads.ts), a file part's (an upload of this request read from
  // its spool file, inline data its own); anything else (a URL, a lookalike object) is undefined.
  fileBase64: {
    impl: (v: unknown) => (typeof v === 'string' ? /^data:[^,]*;base64,(.*)$/s.exec(v)?.[1] : isSpooled(v) ? base64Of(v) : isFile(v) ? v.data : undefined),
    signature: '<x-:s>',
  },
  // Splits a list into runs of neighbours, in one pass: item i joins the run before it when joins[i] is true and keys[i]
  // equals keys[i - 1] (keys and joins made with $map). JSONata has no linear way to fold a list into groups: $reduce
  // with $append copies the growing list at every step, quadratic in a long conversation.
  runs: {
    impl: (items: unknown, keys: unknown, joins: unknown) => {
      const list = Array.isArray(items) ? items : items === undefined ? [] : [items];
      const k = Array.isArray(keys) ? keys : [keys];
      const j = Array.isArray(joins) ? joins : [joins];
      const out: unknown[][] = [];
      list.forEach((item, i) => {
        if (i > 0 && j[i] === true && k[i] === k[i - 1]) out[out.length - 1].push(item);
        else out.push([item]);
      });
      return out;
    },
    signature: '<a?a?a?:a>',
  },
  // Each key of `defaults`, with the value `obj` gives it when it has one: the settings a client sent echoed in an
  // answer, in one call. Written out in JSONata ($exists(...) ? ... : default per field) it costs tens of evaluation
  // steps a field, on every stream that opens.
  withDefaults: {
    impl: (obj: unknown, defaults: Record<string, unknown>) => {
      const given = obj !== null && typeof obj === 'object' && !Array.isArray(obj) ? obj as Record<string, unknown> : {};
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(defaults)) out[k] = given[k] !== undefined ? given[k] : defaults[k];
      return out;
    },
    signature: '<xo:o>',
  },
  // Parses JSON text a vendor embeds in a string field; undefined when it is not JSON.
  parseJson: {
    impl: (s: string) => {
      try { return JSON.parse(s); } catch { return undefined; }
    },
    signature: '<s-:x>',
  },
};

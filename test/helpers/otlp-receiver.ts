// A real OTLP/HTTP traces receiver for tests: what the official exporter posts to /v1/traces, kept raw (to search
// for secrets in the bytes as sent) and, for the JSON encoding (OTLP/HTTP JSON), decoded into flat spans.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface ExportedSpan {
  traceId: string; spanId: string; parentSpanId?: string; name: string; kind: number;
  attributes: Record<string, unknown>; links: { traceId: string; spanId: string; attributes: Record<string, unknown> }[];
  status: { code?: number; message?: string }; start: bigint; end: bigint; resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** The base URL, for OTEL_EXPORTER_OTLP_ENDPOINT (the exporter appends /v1/traces). */
  url: string;
  spans(): ExportedSpan[];
  /** Every export's body as it arrived (decompressed), and its content type. */
  exports(): { contentType: string; path: string; body: Buffer }[];
  close(): Promise<void>;
}

export const SpanKind = { INTERNAL: 1, SERVER: 2, CLIENT: 3 } as const;

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: { contentType: string; path: string; body: Buffer }[] = [];
  const spans: ExportedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      const contentType = String(req.headers['content-type'] ?? '');
      received.push({ contentType, path: req.url ?? '', body });
      if (contentType.startsWith('application/json')) spans.push(...decode(JSON.parse(body.toString('utf8'))));
      res.writeHead(200, { 'content-type': contentType.startsWith('application/json') ? 'application/json' : 'application/x-protobuf' });
      res.end(contentType.startsWith('application/json') ? '{}' : undefined);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...spans],
    exports: () => [...received],
    close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

type KeyValue = { key: string; value: Record<string, unknown> };

function decode(body: any): ExportedSpan[] {
  const out: ExportedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const resource = attrs(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, name: s.name, kind: s.kind,
          attributes: attrs(s.attributes), status: s.status ?? {},
          links: (s.links ?? []).map((l: any) => ({ traceId: l.traceId, spanId: l.spanId, attributes: attrs(l.attributes) })),
          start: BigInt(s.startTimeUnixNano), end: BigInt(s.endTimeUnixNano ?? 0), resource,
        });
      }
    }
  }
  return out;
}

function attrs(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

function valueOf(v: Record<string, any>): unknown {
  if ('stringValue' in v) return v.stringValue;
  if ('intValue' in v) return Number(v.intValue);
  if ('doubleValue' in v) return v.doubleValue;
  if ('boolValue' in v) return v.boolValue;
  if ('arrayValue' in v) return (v.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

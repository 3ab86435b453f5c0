// A dialect stream framed as one JSON array of its events' data instead of SSE (a dialect's `sse_query` the client
// left out): each event's `data:` becomes an element as it comes, so the answer still streams, and the
// array closes when the stream does. The SSE text the stream code makes is rewritten, never buffered.
import type { ServerResponse } from 'node:http';
import { queryOf } from '../pipeline/match-route.js';
import type { CompiledRoute } from '../config/runtime.js';

/** Whether this request's stream is a JSON array: its dialect frames SSE only on a query parameter it lacks. */
export function wantsJsonArray(route: CompiledRoute, url: string): boolean {
  const want = route.dialect?.sseQuery;
  if (!want) return false;
  return queryOf(url)[want.name] !== want.value;
}

export class JsonArrayFramer {
  private started = false;

  /** SSE text (whole events) → the array's next elements. */
  readonly frame = (sse: string | undefined): string => {
    if (!sse) return '';
    let out = '';
    for (const block of sse.split('\n\n')) {
      const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(l.startsWith('data: ') ? 6 : 5)).join('\n');
      if (!data || data === '[DONE]') continue;
      out += `${this.started ? '\r\n,' : '['}${data}`;
      this.started = true;
    }
    return out;
  };

  /** The array's end (an empty array when no element came). */
  close(): string {
    return this.started ? '\r\n]' : '[]';
  }
}

/** A response whose writes go through the framer; `end` closes the array. */
export function framedResponse(res: ServerResponse, f: JsonArrayFramer): Pick<ServerResponse, 'write' | 'end'> {
  return {
    write: ((chunk: string) => res.write(f.frame(chunk))) as ServerResponse['write'],
    end: ((chunk?: string) => res.end(f.frame(chunk) + f.close())) as ServerResponse['end'],
  };
}

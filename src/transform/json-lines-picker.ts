// Picks the values at a few dotted paths (object keys only) out of JSON Lines as they stream past, in bounded memory
// whatever a line holds: a line of a batch's output may carry megabytes of embeddings, of which only its status and
// usage are wanted. Only the picked values are kept (each up to `maxValueBytes`); every other byte is scanned and
// dropped. A raw newline ends a line, as JSON Lines has it; a line that is not whole JSON is reported as such.

const OBJ = 1;
const ARR = 2;
const maxKeyBytes = 256;

/** `picked[i]` is the value at `paths[i]` (undefined when absent or too large); `ok` false when the line was not JSON. */
export type OnLine = (picked: unknown[], ok: boolean) => void;

interface Capture { index: number; depth: number; kind: 'container' | 'string' | 'literal'; parts: Buffer[]; start: number; size: number }

export class JsonLinesPicker {
  private kinds: number[] = [];
  private keys: (string | undefined)[] = [];
  private expectKey = false;
  private mode: 'between' | 'string' | 'literal' = 'between';
  private escape = false;
  private stringIsKey = false;
  private keyParts: Buffer[] = [];
  private keyStart = 0;
  private keySize = 0;
  private capture?: Capture;
  private picked: unknown[];
  private seen = false;
  private broken = false;
  /** The next quote, backslash and newline of the chunk being read (-2: not looked up yet). */
  private found = [-2, -2, -2];
  private readonly depths: Set<number>;
  private readonly paths: string[][];

  constructor(paths: string[][], private readonly onLine: OnLine, private readonly maxValueBytes = 1 << 20) {
    this.paths = paths;
    this.depths = new Set(paths.map((p) => p.length));
    this.picked = new Array(paths.length);
  }

  write(chunk: Buffer): void {
    this.found = [-2, -2, -2];
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i];
      if (this.mode === 'string') {
        i = this.inString(chunk, i);
        continue;
      }
      if (this.mode === 'literal') {
        if (!isDelimiter(c)) continue;
        this.mode = 'between';
        this.ended(chunk, i - 1, 'literal');
      }
      this.between(chunk, i, c);
    }
    this.carry(chunk);
  }

  end(): void {
    if (this.mode === 'literal') {
      this.mode = 'between';
      this.ended(Buffer.alloc(0), -1, 'literal');
    }
    this.lineEnd();
  }

  private between(chunk: Buffer, i: number, c: number): void {
    switch (c) {
      case 0x20: case 0x09: case 0x0d: return;
      case 0x0a: return this.lineEnd();
      case 0x7b: // {
        this.begin(i, 'container');
        this.kinds.push(OBJ);
        this.keys.push(undefined);
        this.expectKey = true;
        return;
      case 0x5b: // [
        this.begin(i, 'container');
        this.kinds.push(ARR);
        this.keys.push(undefined);
        return;
      case 0x7d: case 0x5d: // } ]
        if (this.kinds.pop() !== (c === 0x7d ? OBJ : ARR)) this.broken = true;
        this.keys.pop();
        this.expectKey = false;
        this.ended(chunk, i, 'container');
        return;
      case 0x2c: // ,
        this.expectKey = this.kinds.at(-1) === OBJ;
        return;
      case 0x3a: // :
        return;
      case 0x22: // "
        this.mode = 'string';
        this.escape = false;
        this.stringIsKey = this.kinds.at(-1) === OBJ && this.expectKey;
        if (this.stringIsKey) {
          this.keyParts = [];
          this.keyStart = i + 1;
          this.keySize = 0;
        } else {
          this.begin(i, 'string');
        }
        return;
      default:
        this.begin(i, 'literal');
        this.mode = 'literal';
    }
  }

  /**
   * From `i` inside a string: skips to its closing quote (or the chunk's end); returns the index to go on from. The
   * next quote, backslash and newline of the chunk are looked up once each and kept until passed, so a line of many
   * strings is scanned once, not once per string.
   */
  private inString(chunk: Buffer, i: number): number {
    for (; i < chunk.length; i++) {
      if (this.escape) { this.escape = false; continue; }
      const quote = this.next(chunk, 0, 0x22, i);
      const slash = this.next(chunk, 1, 0x5c, i);
      const newline = this.next(chunk, 2, 0x0a, i);
      const stop = quote < 0 ? slash : slash < 0 ? quote : Math.min(quote, slash);
      if (newline >= 0 && (stop < 0 || newline < stop)) {
        // A raw newline cannot be inside a JSON string: the line was cut or is not JSON.
        this.broken = true;
        this.mode = 'between';
        this.lineEnd();
        return newline;
      }
      if (stop < 0) return chunk.length - 1;
      i = stop;
      if (chunk[i] === 0x5c) { this.escape = true; continue; }
      this.mode = 'between';
      if (this.stringIsKey) this.keyDone(chunk, i);
      else this.ended(chunk, i, 'string');
      return i;
    }
    return i;
  }

  /** The chunk's next `byte` at or after `i` (-1: none), kept in slot `k` until passed. */
  private next(chunk: Buffer, k: number, byte: number, i: number): number {
    const at = this.found[k];
    if (at === -1 || at >= i) return at;
    return (this.found[k] = chunk.indexOf(byte, i));
  }

  private keyDone(chunk: Buffer, quote: number): void {
    this.keySize += quote - this.keyStart;
    let key: string | undefined;
    if (this.keySize <= maxKeyBytes) {
      const raw = Buffer.concat([...this.keyParts, chunk.subarray(this.keyStart, quote)]).toString('utf8');
      try { key = JSON.parse(`"${raw}"`) as string; } catch { this.broken = true; }
    }
    this.keys[this.keys.length - 1] = key;
    this.keyParts = [];
    this.expectKey = false;
  }

  /** A value starts at `i`: captured when it sits at one of the paths. */
  private begin(i: number, kind: Capture['kind']): void {
    this.seen = true;
    const depth = this.kinds.length;
    if (this.capture || !this.depths.has(depth)) return;
    for (let p = 0; p < this.paths.length; p++) {
      const path = this.paths[p];
      if (path.length !== depth || this.picked[p] !== undefined) continue;
      let at = true;
      for (let d = 0; d < depth && at; d++) at = this.kinds[d] === OBJ && this.keys[d] === path[d];
      if (at) { this.capture = { index: p, depth, kind, parts: [], start: i, size: 0 }; return; }
    }
  }

  /** A value of `kind` ended at `i` (inclusive): the capture it closes, if any, is parsed. */
  private ended(chunk: Buffer, i: number, kind: Capture['kind']): void {
    const cap = this.capture;
    if (!cap || cap.kind !== kind || cap.depth !== this.kinds.length) return;
    this.capture = undefined;
    const last = chunk.subarray(cap.start, i + 1);
    if (cap.size + last.length > this.maxValueBytes) return;
    try {
      this.picked[cap.index] = JSON.parse(Buffer.concat([...cap.parts, last]).toString('utf8'));
    } catch {
      this.broken = true;
    }
  }

  /** The end of a chunk: what is being kept goes on in the next one. */
  private carry(chunk: Buffer): void {
    const cap = this.capture;
    if (cap) {
      const rest = chunk.subarray(cap.start);
      cap.size += rest.length;
      if (cap.size > this.maxValueBytes) cap.parts = [];
      else cap.parts.push(rest);
      cap.start = 0;
    }
    if (this.mode === 'string' && this.stringIsKey) {
      this.keySize += chunk.length - this.keyStart;
      if (this.keySize <= maxKeyBytes) this.keyParts.push(chunk.subarray(this.keyStart));
      this.keyStart = 0;
    }
  }

  private lineEnd(): void {
    if (this.seen) {
      const whole = !this.broken && this.kinds.length === 0 && this.mode === 'between';
      this.onLine(this.picked, whole);
    }
    this.kinds = [];
    this.keys = [];
    this.expectKey = false;
    this.mode = 'between';
    this.escape = false;
    this.capture = undefined;
    this.picked = new Array(this.paths.length);
    this.seen = false;
    this.broken = false;
  }
}

const isDelimiter = (c: number) => c === 0x2c || c === 0x7d || c === 0x5d || c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;

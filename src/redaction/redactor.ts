// Replaces every channel secret (keys, secrets, signing keys, tokens minted from them) with asterisks of the same
// byte length: a vendor that echoes its credential never gets it to a client or a log, and a Content-Length
// computed before the replacement stays true.
export interface SecretSource { version(): number; current(now: number): string[] }

const minLength = 4; // shorter values are not secrets worth masking, and would mangle ordinary text
const never = /(?!)/;

export class Redactor {
  private fixed: string[] = [];
  private list: string[] = [];
  private buffers: Buffer[] = [];
  /** Each secret's UTF-8 bytes read as latin1 (one char a byte), so bytes are searched as a string. */
  private latin: string[] = [];
  /** Any secret, as text and as latin1 bytes: one pass tells whether there is anything to mask at all. */
  private anyText = never;
  private anyLatin = never;
  private longest = 0;
  private builtFor = -1;
  private builtAt = 0;

  /** `minted`: credentials derived at run time (e.g. JWTs), which come and go. */
  constructor(private readonly minted?: SecretSource) {}

  /** The configured secrets (on start and on every reload). */
  setSecrets(secrets: Iterable<string | undefined>): void {
    this.fixed = [...new Set([...secrets].filter((s): s is string => typeof s === 'string' && s.length >= minLength))];
    this.builtFor = -1;
  }

  /** Masks every secret in a string. */
  text(s: string): string {
    const list = this.secrets();
    if (!this.anyText.test(s)) return s;
    for (let i = 0; i < list.length; i++) {
      if (s.includes(list[i])) s = s.split(list[i]).join('*'.repeat(Buffer.byteLength(list[i])));
    }
    return s;
  }

  /** Masks every secret in bytes; the input is copied before the first change, never altered. */
  bytes(b: Buffer): Buffer {
    const list = this.secrets();
    if (!this.anyLatin.test(b.toString('latin1'))) return b;
    let out = b;
    for (let i = 0; i < list.length; i++) {
      const needle = this.buffers[i];
      for (let at = out.indexOf(needle); at !== -1; at = out.indexOf(needle, at + needle.length)) {
        if (out === b) out = Buffer.from(b);
        out.fill(0x2a, at, at + needle.length);
      }
    }
    return out;
  }

  /**
   * How many trailing characters of `s` could begin a secret that the next chunk completes: a streamed body holds
   * them back until it knows. Zero for the usual end of an SSE event or a JSON document.
   */
  partialTail(s: string): number {
    return tailOf(s, this.secrets());
  }

  /** `partialTail` for bytes (only the last bytes can begin a secret, read as latin1 like the secrets' bytes). */
  partialTailBytes(b: Buffer): number {
    this.secrets(); // (re)builds `latin` and `longest`
    return tailOf(b.toString('latin1', Math.max(0, b.length - this.longest + 1)), this.latin);
  }

  get active(): boolean {
    return this.secrets().length > 0;
  }

  private secrets(): string[] {
    const now = Date.now();
    const version = this.minted?.version() ?? 0;
    if (version !== this.builtFor || now - this.builtAt > 60_000) {
      this.list = withEncodings([...this.fixed, ...(this.minted?.current(now) ?? [])]);
      this.buffers = this.list.map((s) => Buffer.from(s));
      this.latin = this.buffers.map((b) => b.toString('latin1'));
      this.anyText = anyOf(this.list);
      this.anyLatin = anyOf(this.latin);
      this.longest = Math.max(0, ...this.buffers.map((b) => b.length));
      this.builtFor = version;
      this.builtAt = now;
    }
    return this.list;
  }
}

/** A secret may also leave URL- or JSON-escaped; longest first, so a secret inside another is masked whole. */
function withEncodings(secrets: string[]): string[] {
  const all = new Set<string>();
  for (const s of secrets) {
    all.add(s);
    all.add(encodeURIComponent(s));
    all.add(JSON.stringify(s).slice(1, -1));
  }
  return [...all].filter((s) => s.length >= minLength).sort((a, b) => b.length - a.length);
}

/**
 * One pattern for every secret: the body is read once however many secrets there are (a Buffer.indexOf per secret
 * cost ~0.5 µs each on every answer). Longest first, as the list is.
 */
function anyOf(secrets: string[]): RegExp {
  return secrets.length ? new RegExp(secrets.map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')) : never;
}

/** The longest tail of `s` that is the start of one of `secrets` (and not the whole of it). */
function tailOf(s: string, secrets: string[]): number {
  let keep = 0;
  for (const secret of secrets) {
    const from = Math.max(0, s.length - secret.length + 1);
    for (let i = s.indexOf(secret[0], from); i !== -1; i = s.indexOf(secret[0], i + 1)) {
      if (secret.startsWith(s.slice(i))) { keep = Math.max(keep, s.length - i); break; }
    }
  }
  return keep;
}

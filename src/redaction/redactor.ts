// Replaces every channel secret (keys, secrets, signing keys, tokens minted from them) with asterisks of the same
// byte length: a vendor that echoes its credential never gets it to a client or a log, and a Content-Length
// computed before the replacement stays true.
export interface SecretSource { version(): number; current(now: number): string[] }

const minLength = 4; // shorter values are not secrets worth masking, and would mangle ordinary text

export class Redactor {
  private fixed: string[] = [];
  private list: string[] = [];
  private buffers: Buffer[] = [];
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
    for (let i = 0; i < list.length; i++) {
      if (s.includes(list[i])) s = s.split(list[i]).join('*'.repeat(Buffer.byteLength(list[i])));
    }
    return s;
  }

  /** Masks every secret in bytes; the input is copied before the first change, never altered. */
  bytes(b: Buffer): Buffer {
    const list = this.secrets();
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
    let keep = 0;
    for (const secret of this.secrets()) {
      const from = Math.max(0, s.length - secret.length + 1);
      for (let i = s.indexOf(secret[0], from); i !== -1; i = s.indexOf(secret[0], i + 1)) {
        if (secret.startsWith(s.slice(i))) { keep = Math.max(keep, s.length - i); break; }
      }
    }
    return keep;
  }

  /** `partialTail` for bytes. */
  partialTailBytes(b: Buffer): number {
    let keep = 0;
    const list = this.secrets();
    for (let k = 0; k < list.length; k++) {
      const secret = this.buffers[k];
      for (let i = Math.max(0, b.length - secret.length + 1); i < b.length; i++) {
        if (b[i] === secret[0] && secret.subarray(0, b.length - i).equals(b.subarray(i))) { keep = Math.max(keep, b.length - i); break; }
      }
    }
    return keep;
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

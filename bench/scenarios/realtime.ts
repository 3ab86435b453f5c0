// Realtime relay: 20 concurrent Realtime WebSocket sessions (GET /v1/realtime) through the gateway, through a bare `ws`
// relay (bench/bare-ws-relay.ts, on the same core) and straight to the simulator. Each session runs voice-like turns
// back to back: 8 `input_audio_buffer.append` of 4 KiB of base64 audio, a commit, a user text item and
// `response.create`, whose answer the simulator streams (10 audio deltas of 100 ms, each with its transcript delta,
// 10 ms apart). Frames are counted at the client in both directions over a fixed window: frames/s, the relay's CPU per
// frame, and the time from response.create to response.created (a round trip through the relay the vendor answers at once).
import WebSocket, { type RawData } from 'ws';
import { cpuSeconds } from '../proc-stats.js';
import { foreignLoadReport, interleaved3, type BenchContext, type Row, type Scenario, type Section, type Target } from '../scenario.js';
import { fmt, fmtInt, fmtRatio, median, pairedDelta, pairedRatio, percentiles, signed } from '../stats.js';

const model = 'gpt-realtime-2.1';
const sessions = 20;
const appendsPerTurn = 8;
const deltas = 10;
const deltaIntervalMs = 10;
const openTimeoutMs = 10_000;
const turnTimeoutMs = 10_000;
const warmMs = 500; // turns already running before the window opens

/** 3,072 bytes of 24 kHz PCM16 (64 ms of a 440 Hz tone): 4,096 characters of base64. */
const audio = (() => {
  const pcm = Buffer.alloc(3072);
  for (let i = 0; i < pcm.length / 2; i++) pcm.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 24000)), i * 2);
  return pcm.toString('base64');
})();
const frame = (event: unknown) => Buffer.from(JSON.stringify(event));
const frames = {
  // No server VAD: the client decides when a turn ends (commit), so every response is one the load asked for.
  update: frame({ type: 'session.update', session: { type: 'realtime', audio: { input: { turn_detection: null } } } }),
  append: frame({ type: 'input_audio_buffer.append', audio }),
  commit: frame({ type: 'input_audio_buffer.commit' }),
  item: frame({
    type: 'conversation.item.create',
    item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: `Go on. [sim chunks=${deltas} interval_ms=${deltaIntervalMs}]` }] },
  }),
  respond: frame({ type: 'response.create' }),
};
/** Frames one turn sends and receives, for the notes: the client's 11 and the vendor's 5 + 4 + 2 × deltas + 7. */
const turnFramesOut = appendsPerTurn + 3;
const turnFramesIn = 5 + 4 + 2 * deltas + 7;

/** OpenAI and the simulator write `type` first; the gateway relays frames untouched, so the head tells the type. */
const headType = /^\s*\{\s*"type"\s*:\s*"([^"\\]{1,64})"/;
const typeOf = (data: Buffer) => headType.exec(data.toString('latin1', 0, 96))?.[1];

/** What all sessions of one run add up to; frames count only while `counting`. */
interface Tally {
  counting: boolean;
  framesIn: number; framesOut: number; bytesIn: number; bytesOut: number;
  turns: number;
  /** ms from sending response.create to receiving response.created, in the window. */
  latencies: number[];
  errorEvents: number;
  firstError?: string;
}

class Session {
  ws?: WebSocket;
  openMs = NaN;
  failure?: string;
  private closing = false;
  private sentAt = NaN;
  private turnDone?: (ok: boolean) => void;
  private opened?: () => void;

  constructor(private readonly t: Target, private readonly tally: Tally) {}

  /** Resolves once session.created has arrived (and session.update is sent), or with the failure noted. */
  open(): Promise<void> {
    const t0 = performance.now();
    return new Promise((resolve) => {
      let settled = false;
      const done = (failure?: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.opened = undefined;
        if (failure) { this.failure = failure; ws.terminate(); } else this.openMs = performance.now() - t0;
        resolve();
      };
      const timer = setTimeout(() => done('open timed out'), openTimeoutMs);
      const url = `${this.t.url.replace(/^http/, 'ws')}/v1/realtime?model=${model}`;
      const ws = new WebSocket(url, { headers: { authorization: `Bearer ${this.t.key}` }, perMessageDeflate: false });
      this.ws = ws;
      this.opened = () => { ws.send(frames.update, { binary: false }); done(); };
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (d: Buffer) => { if (body.length < 300) body += d.toString('utf8'); });
        const end = () => done(`HTTP ${res.statusCode}: ${body.slice(0, 200)}`);
        res.once('end', end);
        res.once('close', end);
      });
      ws.on('error', (err) => { this.failure ??= err.message; done(err.message); this.turnDone?.(false); });
      ws.on('message', (data: RawData) => this.received(data as Buffer));
      ws.once('close', (code) => {
        if (!this.closing) this.failure ??= `closed by the server (${code})`;
        done(this.failure ?? 'closed');
        this.turnDone?.(false);
      });
    });
  }

  private received(data: Buffer): void {
    const tally = this.tally;
    if (tally.counting) { tally.framesIn++; tally.bytesIn += data.length; }
    switch (typeOf(data)) {
      case 'session.created': this.opened?.(); break;
      case 'response.created':
        if (tally.counting && Number.isFinite(this.sentAt)) tally.latencies.push(performance.now() - this.sentAt);
        this.sentAt = NaN;
        break;
      case 'response.done': this.turnDone?.(true); break;
      case 'error':
        tally.errorEvents++;
        tally.firstError ??= data.toString('utf8', 0, 300);
        this.turnDone?.(false);
        break;
    }
  }

  private send(buf: Buffer): void {
    if (this.tally.counting) { this.tally.framesOut++; this.tally.bytesOut += buf.length; }
    this.ws!.send(buf, { binary: false });
  }

  /** Turns back to back until `stopped()`; the turn in progress then runs to its response.done. */
  async loop(stopped: () => boolean, signal: AbortSignal): Promise<void> {
    while (!stopped() && !signal.aborted && this.ws?.readyState === WebSocket.OPEN) {
      let timer: NodeJS.Timeout | undefined;
      const done = new Promise<boolean>((resolve) => {
        this.turnDone = resolve;
        timer = setTimeout(() => resolve(false), turnTimeoutMs);
      });
      for (let i = 0; i < appendsPerTurn; i++) this.send(frames.append);
      this.send(frames.commit);
      this.send(frames.item);
      this.sentAt = performance.now();
      this.send(frames.respond);
      const ok = await done;
      clearTimeout(timer);
      this.turnDone = undefined;
      if (!ok) { this.failure ??= 'a turn did not finish (error event, close or timeout)'; return; }
      if (this.tally.counting) this.tally.turns++;
    }
  }

  /** A clean close; a side that does not finish the closing handshake within 2 s is cut. */
  close(): Promise<void> {
    const ws = this.ws;
    this.closing = true;
    if (!ws || ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => ws.terminate(), 2000);
      ws.once('close', () => { clearTimeout(timer); resolve(); });
      if (ws.readyState === WebSocket.OPEN) ws.close(1000); else ws.terminate();
    });
  }
}

interface Measured {
  seconds: number;
  fps: number; inFps: number; outFps: number; mbps: number;
  /** The relay's (gateway's or bare relay's) CPU µs per frame relayed; NaN for direct. */
  cpuUs: number;
  /** The relay's CPU seconds ÷ wall seconds of the window. */
  cpuShare: number;
  simCpuUs: number;
  /** Simulator + this process (the load generator), CPU seconds ÷ wall seconds: both on CPU 1 when pinned. */
  clientCoreShare: number;
  turnsPerS: number;
  latP50: number; latP99: number;
  openP50: number; openP99: number;
  opened: number; failed: number; errorEvents: number;
  failures: string[];
  firstError?: string;
}

const pause = (ms: number, signal: AbortSignal) => new Promise<void>((resolve) => {
  const done = () => { clearTimeout(timer); signal.removeEventListener('abort', done); resolve(); };
  const timer = setTimeout(done, ms);
  signal.addEventListener('abort', done, { once: true });
});

/** One run: all sessions opened at once, turns running, a window of `seconds` counted, then every session closed. */
async function runOnce(ctx: BenchContext, t: Target, pid: number | undefined, seconds: number): Promise<Measured> {
  const tally: Tally = { counting: false, framesIn: 0, framesOut: 0, bytesIn: 0, bytesOut: 0, turns: 0, latencies: [], errorEvents: 0 };
  const ss = Array.from({ length: sessions }, () => new Session(t, tally));
  let stopped = false;
  let loops: Promise<unknown> = Promise.resolve();
  let window = { wall: NaN, cpu: NaN, sim: NaN, own: NaN };
  try {
    await Promise.all(ss.map((s) => s.open()));
    loops = Promise.all(ss.filter((s) => !s.failure).map((s) => s.loop(() => stopped, ctx.signal)));
    await pause(warmMs, ctx.signal);
    const c0 = pid === undefined ? NaN : cpuSeconds(pid);
    const s0 = cpuSeconds(ctx.simPid);
    const own0 = process.cpuUsage();
    const t0 = performance.now();
    tally.counting = true;
    await pause(seconds * 1000, ctx.signal);
    tally.counting = false;
    const own = process.cpuUsage(own0);
    window = {
      wall: (performance.now() - t0) / 1000, cpu: pid === undefined ? NaN : cpuSeconds(pid) - c0, sim: cpuSeconds(ctx.simPid) - s0,
      own: (own.user + own.system) / 1e6,
    };
    stopped = true;
    await loops;
  } finally {
    stopped = true;
    await loops.catch(() => undefined);
    await Promise.all(ss.map((s) => s.close()));
  }
  const relayed = tally.framesIn + tally.framesOut;
  const [latP50, latP99] = percentiles(tally.latencies, [50, 99]);
  const [openP50, openP99] = percentiles(ss.filter((s) => Number.isFinite(s.openMs)).map((s) => s.openMs), [50, 99]);
  const failures = ss.flatMap((s) => (s.failure ? [s.failure] : []));
  return {
    seconds: window.wall,
    fps: relayed / window.wall, inFps: tally.framesIn / window.wall, outFps: tally.framesOut / window.wall,
    mbps: (tally.bytesIn + tally.bytesOut) / 1e6 / window.wall,
    cpuUs: (window.cpu * 1e6) / relayed, cpuShare: window.cpu / window.wall, simCpuUs: (window.sim * 1e6) / relayed,
    clientCoreShare: (window.sim + window.own) / window.wall,
    turnsPerS: tally.turns / window.wall, latP50, latP99, openP50, openP99,
    opened: ss.filter((s) => Number.isFinite(s.openMs)).length, failed: failures.length, errorEvents: tally.errorEvents, failures, firstError: tally.firstError,
  };
}

export const realtimeRelay: Scenario = {
  name: 'realtime',
  quick: true,
  async run(ctx: BenchContext): Promise<Section> {
    const seconds = ctx.mode === 'full' ? 5 : 3;
    const relay = await ctx.bareWs();
    // The bare relay takes the place of the rig's bare HTTP proxy in interleaved3; it swaps the key like it.
    const rctx: BenchContext = { ...ctx, bare: { name: 'bare', url: relay.url, key: ctx.gateway.key } };
    const pidOf: Record<Target['name'], number | undefined> = { gateway: ctx.gatewayPid, bare: relay.pid, direct: undefined };
    for (const t of [rctx.gateway, rctx.bare, rctx.direct]) {
      if (ctx.signal.aborted) break;
      await runOnce(ctx, t, pidOf[t.name], 1); // warm-up, not recorded
    }
    const runs = await interleaved3(rctx, async (t, i) => {
      ctx.log(`realtime: ${t.name} ${sessions} sessions, run ${i + 1}/${ctx.runs}`);
      return runOnce(ctx, t, pidOf[t.name], seconds);
    });
    const g = runs.gateway, b = runs.bare, d = runs.direct;
    const col = (rs: Measured[], k: keyof Measured) => rs.map((r) => r[k] as number);
    const med = (rs: Measured[], k: keyof Measured) => median(col(rs, k));
    const ms = (rs: Measured[], k: keyof Measured) => fmt(med(rs, k), 3, ' ms');
    const at = `${sessions} sessions`;
    const rows: Row[] = [];
    rows.push({
      metric: `frames/s relayed, both directions, ${at}`,
      gateway: fmtInt(med(g, 'fps')), bare: fmtInt(med(b, 'fps')), direct: fmtInt(med(d, 'fps')),
      vsBare: fmtRatio(pairedRatio(col(g, 'fps'), col(b, 'fps'))),
      delta: `${fmt((pairedRatio(col(g, 'fps'), col(d, 'fps')) - 1) * 100, 1)} %`,
    });
    const split = (rs: Measured[]) => `${fmtInt(med(rs, 'outFps'))} / ${fmtInt(med(rs, 'inFps'))}`;
    rows.push({ metric: 'of which client → vendor / vendor → client', gateway: split(g), bare: split(b), direct: split(d) });
    rows.push({ metric: 'MB/s relayed, both directions', gateway: fmt(med(g, 'mbps'), 1), bare: fmt(med(b, 'mbps'), 1), direct: fmt(med(d, 'mbps'), 1) });
    rows.push({ metric: 'turns/s (all sessions)', gateway: fmt(med(g, 'turnsPerS'), 1), bare: fmt(med(b, 'turnsPerS'), 1), direct: fmt(med(d, 'turnsPerS'), 1) });
    rows.push({
      metric: `relay CPU per frame, ${at} (gateway ÷ bare)`,
      gateway: fmt(med(g, 'cpuUs'), 1, ' µs'), bare: fmt(med(b, 'cpuUs'), 1, ' µs'), vsBare: fmtRatio(pairedRatio(col(g, 'cpuUs'), col(b, 'cpuUs'))),
    });
    rows.push({ metric: 'share of CPU 0 used by the relay (1.00 = the whole core)', gateway: fmt(med(g, 'cpuShare'), 2), bare: fmt(med(b, 'cpuShare'), 2) });
    rows.push({
      metric: 'simulator CPU per frame',
      gateway: fmt(med(g, 'simCpuUs'), 1, ' µs'), bare: fmt(med(b, 'simCpuUs'), 1, ' µs'), direct: fmt(med(d, 'simCpuUs'), 1, ' µs'),
    });
    rows.push({
      metric: 'share of CPU 1 used by simulator + load generator',
      gateway: fmt(med(g, 'clientCoreShare'), 2), bare: fmt(med(b, 'clientCoreShare'), 2), direct: fmt(med(d, 'clientCoreShare'), 2),
    });
    for (const k of ['latP50', 'latP99'] as const) {
      rows.push({
        metric: `response.create → response.created ${k === 'latP50' ? 'p50' : 'p99'}, ${at}`,
        gateway: ms(g, k), bare: ms(b, k), direct: ms(d, k),
        vsBare: signed(pairedDelta(col(g, k), col(b, k))), delta: signed(pairedDelta(col(g, k), col(d, k))),
      });
    }
    const open = (rs: Measured[]) => `${fmt(med(rs, 'openP50'), 1)} / ${fmt(med(rs, 'openP99'), 1)} ms`;
    rows.push({ metric: `session open (upgrade → session.created) p50 / p99, ${sessions} at once`, gateway: open(g), bare: open(b), direct: open(d) });
    const sum = (rs: Measured[], k: keyof Measured) => col(rs, k).reduce((x, y) => x + y, 0);
    const tally = (rs: Measured[]) => `${sum(rs, 'opened')} / ${sum(rs, 'failed')} / ${sum(rs, 'errorEvents')}`;
    rows.push({
      metric: 'sessions opened / failed / error events (all runs)', target: '0 failed, 0 errors',
      gateway: tally(g), bare: tally(b), direct: tally(d),
      pass: [...g, ...b, ...d].every((r) => r.failed === 0 && r.errorEvents === 0) && g.length + b.length + d.length > 0,
    });
    const foreign = foreignLoadReport(runs.foreign);
    rows.push(...foreign.rows);
    const perRun: Record<string, number[]> = { ...foreign.perRun };
    for (const [name, rs] of [['gateway', g], ['bare', b], ['direct', d]] as const) {
      perRun[`${name} frames/s`] = col(rs, 'fps');
      perRun[`${name} response.created p50 ms`] = col(rs, 'latP50');
    }
    perRun['gateway CPU µs/frame'] = col(g, 'cpuUs');
    perRun['bare CPU µs/frame'] = col(b, 'cpuUs');
    const problems = [...g, ...b, ...d].flatMap((r) => [...r.failures, ...(r.firstError ? [`error event: ${r.firstError}`] : [])]);
    return {
      title: `Realtime relay (WebSocket, ${sessions} sessions)`,
      rows,
      perRun,
      notes: [
        `${seconds} s window per run (after ${warmMs} ms of turns), gateway, bare relay and direct interleaved run by run, their order rotated; every run opens ${sessions} fresh sessions on \`${model}\` at once and closes them after its window.`,
        `A turn: ${appendsPerTurn} \`input_audio_buffer.append\` of ${audio.length.toLocaleString('en-US')} base64 characters (64 ms of 24 kHz PCM16 each), \`input_audio_buffer.commit\`, a user text item and \`response.create\`; the simulator answers with ${deltas} audio deltas (100 ms, 6,400 base64 characters each) and their transcript deltas ${deltaIntervalMs} ms apart. About ${turnFramesOut} frames out and ${turnFramesIn} in a turn; each session starts its next turn at the response.done. Server VAD is off (\`turn_detection: null\`).`,
        'Frames are counted at the client, both directions, while the window is open; the relay handles each once. CPU per frame = the relay\'s utime + stime (all threads, /proc) over the window ÷ those frames: the gateway in gateway runs, the bare relay in bare runs.',
        'The bare relay (`bare-ws-relay.ts`) is a `ws` server that on each upgrade dials the same path on the simulator with its key and pipes frames both ways, with the gateway\'s send bounds; no auth, session slots, holds, metering or logging. It is started on demand on CPU 0, beside the gateway, and loaded only in its own runs.',
        'Frames/s is set by the simulator\'s pace (deltas 10 ms apart) and by CPU 1, where the simulator and the load generator run (its share is shown): near 1.00 the client side is the limit and every target\'s frames/s and latencies move with it; the relay\'s CPU per frame is the figure to compare.',
        'response.create → response.created: the simulator answers at once, so it is a round trip through the relay and both event loops. The gateway reads each vendor frame\'s head for its type and parses only the events it charges (response.done).',
        `The bench config raises the realtime route's \`max_sessions_per_token\` (8 shipped) so all ${sessions} sessions share the bench token.`,
        ...foreign.notes,
        ...(problems.length ? [`failures: ${[...new Set(problems)].slice(0, 5).join('; ')}`] : []),
      ],
    };
  },
};

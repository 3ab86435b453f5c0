// What a client of an audio route asked for (a format, bytes or the route's events) and how a vendor's audio events
// become that, chunk by chunk: decoded into bytes (with a WAV header first where the vendor sends raw PCM and the
// client asked for WAV), or written as the route's own events. Nothing is held beyond one event.
import { GatewayError } from '../http/errors.js';
import type { CompiledOperationAudio, CompiledRouteAudio } from '../config/compile-audio.js';
import type { PcmLayout } from '../media/wav-header.js';
import { valueAt } from '../http/body-numbers.js';
import { walk } from '../transform/usage-paths.js';
import { wavStreamHeader } from '../media/wav-header.js';

export interface AudioWish { format: string; events: boolean; contentType: string }

/**
 * The client's format and form; undefined on a route that answers no audio. A client naming no format gets the
 * route's default, or what the vendor gives where it gives one format only (Gemini's raw PCM).
 */
export function audioWish(a: CompiledRouteAudio | undefined, body: Record<string, unknown>, vendorFormat?: string): AudioWish | undefined {
  if (!a) return undefined;
  let format = vendorFormat ?? a.defaultFormat;
  for (const path of a.formatAt) {
    const v = valueAt(body, path);
    if (typeof v === 'string') { format = v; break; }
  }
  const events = a.eventsAt !== undefined && valueAt(body, a.eventsAt.path) === a.eventsAt.value;
  return { format, events, contentType: a.contentTypes[format] ?? 'application/octet-stream' };
}

/**
 * Refuses a format the vendor cannot give: it sends one format whatever was asked, and only raw PCM can become WAV
 * here. A model's price usually refuses such a request first (a `response_format` dimension listing what it gives).
 */
export function checkFormat(wish: AudioWish | undefined, vendor: CompiledOperationAudio | undefined, field: string): void {
  if (!wish || !vendor?.format || wish.format === vendor.format) return;
  if (wish.format === 'wav' && vendor.format === 'pcm' && vendor.pcm) return;
  throw new GatewayError('invalid_request', `\`${field}\` ${wish.format.slice(0, 40)} is not offered by this model's vendor (it answers ${vendor.format}${vendor.pcm ? ' or wav' : ''})`);
}

/** Turns one vendor event (parsed JSON) into what the client gets: bytes, an event's text, or nothing. */
export class AudioOut {
  private started = false;

  constructor(private readonly vendor: CompiledOperationAudio, private readonly wish: AudioWish, private readonly route: CompiledRouteAudio) {}

  chunk(event: unknown): string | Buffer | undefined {
    const data = this.dataOf(event);
    if (!data) return undefined;
    if (this.wish.events) {
      const b64 = this.vendor.encoding === 'base64' ? data : Buffer.from(data, 'hex').toString('base64');
      return `data: {"type":${JSON.stringify(this.route.delta.type)},${JSON.stringify(this.route.delta.data)}:"${b64}"}\n\n`;
    }
    const bytes = Buffer.from(data, this.vendor.encoding);
    if (this.started) return bytes;
    this.started = true;
    const pcm = this.wavFromPcm();
    return pcm ? Buffer.concat([wavStreamHeader(pcm), bytes]) : bytes;
  }

  /** The first string at the vendor's paths; a chunk the encoding cannot hold is not audio (never decoded loosely). */
  private dataOf(event: unknown): string | undefined {
    for (const p of this.vendor.data) {
      const v = walk(event, p);
      if (typeof v !== 'string' || !v.length) continue;
      if (!(this.vendor.encoding === 'hex' ? /^(?:[0-9a-fA-F]{2})*$/ : /^[A-Za-z0-9+/]*={0,2}$/).test(v)) {
        throw new GatewayError('bad_response_body', `Bad upstream response body: an audio chunk is not ${this.vendor.encoding}`);
      }
      return v;
    }
    return undefined;
  }

  private wavFromPcm(): PcmLayout | undefined {
    return this.wish.format === 'wav' && this.vendor.format === 'pcm' ? this.vendor.pcm : undefined;
  }
}

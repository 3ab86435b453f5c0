// Test-facing view of the voice endpoints: MediaControl plus realtimeSessions() (what each Realtime socket received and
// sent, its usage, whether it is still open, the key it was opened with) and audioRequests() (what the speech and
// transcription endpoints received), also served under /_sim/realtime and /_sim/audio.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Control } from '../control.js';
import { errorBody, sendJson } from '../http.js';
import { MediaControl } from '../media/control.js';
import { type AudioRequestRecord, audioLogOf } from '../audio/records.js';
import { type RealtimeSessionRecord, realtimeStoreOf } from './store.js';

export class RealtimeControl extends MediaControl {
  /** Every Realtime session of this simulator, oldest first, open or closed. */
  realtimeSessions(): RealtimeSessionRecord[] {
    return realtimeStoreOf(this).records.map((r) => structuredClone(r));
  }

  /** Sockets still open: 0 after a gateway closed everything it opened. */
  openRealtimeSessions(): number {
    return realtimeStoreOf(this).live.size;
  }

  /** Drops the records of closed sessions and the minted client secrets (open sessions stay). */
  clearRealtime(): void {
    const store = realtimeStoreOf(this);
    store.records = store.records.filter((r) => r.open);
    store.secrets.clear();
  }

  audioRequests(): AudioRequestRecord[] {
    return audioLogOf(this).map((r) => ({ ...r }));
  }

  clearAudio(): void {
    audioLogOf(this).length = 0;
  }
}

/** `/_sim/realtime` and `/_sim/audio`; false when the path is neither, so other control planes answer. */
export function serveVoiceControl(req: IncomingMessage, res: ServerResponse, path: string, control: Control): boolean {
  if (!(control instanceof RealtimeControl) || !/^\/_sim\/(realtime|audio)\/?$/.test(path)) return false;
  const route = `${req.method} ${path.replace(/\/+$/, '')}`;
  const views: Record<string, () => unknown> = {
    'GET /_sim/realtime': () => ({ data: control.realtimeSessions(), open: control.openRealtimeSessions() }),
    'DELETE /_sim/realtime': () => (control.clearRealtime(), { ok: true }),
    'GET /_sim/audio': () => ({ data: control.audioRequests() }),
    'DELETE /_sim/audio': () => (control.clearAudio(), { ok: true }),
  };
  const view = views[route];
  if (view) sendJson(res, 200, view());
  else sendJson(res, 404, errorBody(`Unknown control route (${route})`, 'invalid_request_error', null, null));
  return true;
}

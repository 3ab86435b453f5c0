// OpenAI Realtime for server.ts: the WebSocket (upgrade.ts), the client-secret route, and the control view.
export { REALTIME_PATH, type RealtimeServer, attachRealtime, realtimeCredential } from './upgrade.js';
export { realtimeClientSecrets } from './client-secrets.js';
export { RealtimeControl, serveVoiceControl } from './control.js';
export type { RealtimeLimits, RealtimeSessionRecord, UsageTotals } from './store.js';
export { ASSISTANT_AUDIO_TOKENS_PER_SECOND, USER_AUDIO_TOKENS_PER_SECOND } from './usage.js';

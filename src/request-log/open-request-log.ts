// The request log of one gateway process: its store, spool and writer from the settings, and its retention step
// (records older than the retention dropped; on PostgreSQL, the days ahead given their partitions).
import type { Logger } from 'pino';
import { openLogStore } from './open-log-store.js';
import { ReconnectingLogStore } from './reconnecting-log-store.js';
import { RequestLog } from './request-log.js';
import { Spool } from './spool.js';
import { retentionCutoff, type LogSettings } from './log-settings.js';

export async function openRequestLog(s: LogSettings, log: Logger): Promise<RequestLog> {
  // The gateway starts whether or not its log database answers (and without waiting for it): records wait in the
  // spool until it does.
  const store = new ReconnectingLogStore(() => openLogStore(s.uri));
  void store.tryOpen();
  const spool = new Spool(s.spoolDir, s.spoolMaxBytes);
  const requestLog = new RequestLog(store, spool, {
    // A batch of 250 holds the event loop about 5 ms on SQLite; the timeout outlasts PostgreSQL's own statement timeout
    // (5 s, and its client's a second later), so a database that answers with an error says so first.
    flushMs: s.flushMs, insertTimeoutMs: 7000, batchSize: 250,
    onError: (msg, err) => log.error({ err: err instanceof Error ? err.message : err }, msg),
  });
  requestLog.start();
  return requestLog;
}

/** One retention pass: what the log keeps no longer, and (PostgreSQL) the partitions of the days ahead. */
export async function pruneRequestLog(r: RequestLog, s: LogSettings, log: Logger): Promise<void> {
  const store = r.store as { maintain?: (now: number) => Promise<void> };
  if (store.maintain) await store.maintain(Date.now());
  const dropped = await r.store.prune(retentionCutoff(s));
  if (dropped) log.info({ dropped, retention_days: s.retentionDays }, 'request log: records past their retention dropped');
}

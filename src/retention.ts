// The hourly retention pass: what the store keeps no longer (the SQLite ledger's old closed entries and usage cells,
// keyv records past their expiry that nobody read again, expired leases under keys nobody touched again; Redis's old
// usage periods, its markers, records and leases expiring by themselves) and what the request log keeps no longer (old
// records; on PostgreSQL, the days ahead given their partitions). Each step is bounded work: a step with more to do
// is asked again a little later rather than holding the event loop.
import type { Logger } from 'pino';
import { BackgroundLoop } from './tasks/background-loop.js';
import type { Store } from './store/open-store.js';
import type { RequestLog } from './request-log/request-log.js';
import { pruneRequestLog } from './request-log/open-request-log.js';
import type { LogSettings } from './request-log/log-settings.js';

const hour = 3_600_000;

export function retentionLoop(store: Store, log: Logger, requestLog?: { log: RequestLog; settings: LogSettings }): BackgroundLoop {
  let soon = false;
  const pass = async () => {
    const pruned = await store.quota.prune(Date.now());
    const swept = await store.sweepExpired?.(Date.now());
    const leased = await store.leases.prune?.(Date.now());
    soon = pruned.more || Boolean(swept?.more) || Boolean(leased?.more);
    if (pruned.entries || pruned.cells || swept?.dropped || leased?.dropped) {
      log.info({ entries: pruned.entries, cells: pruned.cells, records: swept?.dropped ?? 0, leases: leased?.dropped ?? 0 },
        'store: entries, usage cells, records and expired leases past their retention dropped');
    }
    if (requestLog && !soon) await pruneRequestLog(requestLog.log, requestLog.settings, log);
  };
  const loop = new BackgroundLoop('retention', log, () => (soon ? 1000 : hour), pass);
  loop.start(60_000); // off the boot's path
  return loop;
}

// A task submit route for models priced per second must say where the seconds are: without `price_inputs.seconds`
// every task is charged the model's default seconds, whatever the client asked for. Before price_inputs existed the
// seconds were read from `seconds`, `duration` or `metadata.duration` by default, so a config of that release loads
// with the default gone: this warning says so.
import type { ChannelsFile } from '../types/generated/channels.js';
import type { RoutesFile } from '../types/generated/routes.js';
import type { Diagnostic } from './diagnostics.js';

type Report = (level: Diagnostic['level'], pointer: string, message: string) => void;
type Merge = (ch: ChannelsFile['channels'][number], channels: ChannelsFile) => ChannelsFile['channels'][number];

export function priceInputRules(routes: RoutesFile, channels: ChannelsFile, withTemplate: Merge, at: Report): void {
  routes.routes.forEach((r, i) => {
    if (r.task?.action !== 'submit' || r.price_inputs?.seconds) return;
    const op = r.operation ?? r.id;
    const served = new Set(channels.channels.flatMap((c) => {
      const merged = withTemplate(c, channels);
      const spec = merged.operations?.[op];
      return spec ? spec.models ?? merged.models ?? [] : [];
    }));
    const perSecond = [...served].filter((m) => (channels.models[m]?.price.per_second ?? 0) > 0);
    if (!perSecond.length) return;
    const names = perSecond.length > 3 ? `${perSecond.slice(0, 3).join(', ')}, …` : perSecond.join(', ');
    at('warning', `/routes/${i}`, `route "${r.id}" submits tasks for models priced per second (${names}) but has no \`price_inputs.seconds\`: every task is charged the model's default seconds; add e.g. \`price_inputs: { seconds: [seconds, duration, metadata.duration] }\` (what an earlier release read by default)`);
  });
}

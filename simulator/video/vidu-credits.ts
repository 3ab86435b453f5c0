// What Vidu charges for a task, reported as `credits` on the submit answer and the creations query: by model, action,
// resolution, duration, `audio` and `off_peak`. Prices from platform.vidu.com/docs/pricing as researched in the
// notes of 2026-11-27 on Kling and Vidu (1 credit = $0.005); the gateway bills this figure.

type Json = Record<string, unknown>;

/**
 * Credits for d seconds: flat per second (Q3), per clip (Q1, 2.0), or Q2's curve: `first` for the first second,
 * `second` once it reaches two seconds, then `step` for each further second.
 */
type Price =
  | { perSecond: number; offPeak?: number }
  | { perClip: Record<number, number>; offPeak?: number }
  | { first: number; second: number; step: number };

/** Q3 rates per second at 540p/720p/1080p, normal and off-peak (the page's own off-peak column, about half). */
function q3(normal: [number, number, number], offPeak?: [number, number, number]): Record<string, Price> {
  const tiers = ['540p', '720p', '1080p'];
  return Object.fromEntries(tiers.map((r, i) => [r, { perSecond: normal[i], offPeak: offPeak?.[i] }]));
}

/** Q2's curve from its start price and per-second step (reading A of the note: the start covers the first second). */
const curve = (first: number, step: number, second = first + step): Price => ({ first, second, step });

interface Row { match: RegExp; action?: RegExp; prices: Record<string, Price> }

const Q3_PRO: Row = { match: /^viduq3/, prices: q3([9, 20, 24], [5, 10, 12]) };
/** The page lists 8 s at 720p only (100 against 40 for 4 s); other 8 s prices are the simulator's extrapolation by that 2.5×. */
const V2_CLIPS = (four: number): Price => ({ perClip: { 4: four, 8: four * 2.5 } });

/** First match wins, so route-specific rows come before a model's general row. */
const ROWS: Row[] = [
  { match: /^viduq3-turbo$/, action: /^reference2video$/, prices: q3([4, 10, 13], [2, 5, 7]) },
  { match: /^viduq3-turbo$/, prices: q3([7, 11, 13], [4, 6, 7]) },
  { match: /^viduq3-pro-fast$/, prices: q3([20, 20, 25], [10, 10, 13]) }, // no 540p tier: billed as 720p
  { match: /^viduq3-mix$/, prices: q3([24, 24, 29]) }, // no 540p tier, no off-peak
  { match: /^viduq3$/, prices: q3([7, 12, 15], [4, 6, 7]) },
  Q3_PRO,
  // Q2: only turbo 720p is confirmed from Vidu's own wording; the other curves are a reseller's (shortapi.ai), as researched.
  { match: /^viduq2-turbo$/, prices: { '540p': curve(6, 2), '720p': curve(8, 10, 10), '1080p': curve(35, 10) } },
  { match: /^viduq2-pro-fast$/, prices: { '540p': curve(8, 2), '720p': curve(8, 2), '1080p': curve(16, 4) } }, // no 540p tier
  { match: /^viduq2-pro$/, prices: { '540p': curve(8, 5, 10), '720p': curve(15, 10), '1080p': curve(55, 15) } },
  // Plain viduq2 (text2video, reference2video): the reseller's unconfirmed figures ($0.075 read for its "$0.75").
  { match: /^viduq2/, prices: { '540p': curve(10, 2), '720p': curve(15, 5), '1080p': curve(20, 10) } },
  { match: /^viduq1/, prices: { '1080p': { perClip: { 5: 80 }, offPeak: 40 } } },
  // 2.0 (1.5 priced alike): reference2video 80 per 4 s clip at 360p or 720p (1080p not listed: the same); img2video
  // and start-end2video 20/40/100 at 360p/720p/1080p.
  { match: /^vidu(2\.0|1\.5)$/, action: /^reference2video$/, prices: { '360p': V2_CLIPS(80), '720p': V2_CLIPS(80), '1080p': V2_CLIPS(80) } },
  { match: /^vidu(2\.0|1\.5)$/, prices: { '360p': V2_CLIPS(20), '720p': V2_CLIPS(40), '1080p': V2_CLIPS(100) } },
];

/** Unknown models bill as viduq3-pro: flat per second, so any duration has a price. */
const rowOf = (model: string, action: string): Row => ROWS.find((r) => r.match.test(model) && (!r.action || r.action.test(action))) ?? Q3_PRO;

const isV2 = (model: string) => /^vidu(2\.0|1\.5)$/.test(model);

/** Vidu's default duration: 5 s, 4 s on vidu2.0 (and 1.5). */
export function viduDuration(body: Json): number {
  return Number.isInteger(body.duration) ? (body.duration as number) : isV2(String(body.model)) ? 4 : 5;
}

/** The resolution rendered: the request's, else the model's default (Q3/Q2 720p, Q1 1080p, 2.0 360p at 4 s, 720p at 8 s). */
export function viduResolution(body: Json): string {
  if (typeof body.resolution === 'string') return body.resolution;
  const model = String(body.model);
  if (/^viduq1/.test(model)) return '1080p';
  if (isV2(model)) return viduDuration(body) === 8 ? '720p' : '360p';
  return '720p';
}

/**
 * The credits for one task. Surcharges, as researched: Q2 `audio: true` on img2video or reference2video +15 and
 * `is_rec: true` +10 per task. Off-peak prices exist for Q3 and Q1 only; Q2 and 2.0 off-peak were not transcribed and
 * bill the normal price. Q3's `audio` has one price (the page gives no silent rate).
 */
export function viduCredits(body: Json, action: string): number {
  const model = String(body.model);
  const row = rowOf(model, action);
  const resolution = viduResolution(body);
  const price = row.prices[resolution] ?? row.prices['720p'] ?? Object.values(row.prices)[0];
  const d = viduDuration(body);
  const offPeak = body.off_peak === true;
  let credits: number;
  if ('perSecond' in price) credits = (offPeak && price.offPeak !== undefined ? price.offPeak : price.perSecond) * d;
  else if ('perClip' in price) credits = offPeak && price.offPeak !== undefined ? price.offPeak : price.perClip[d] ?? Object.values(price.perClip)[0];
  else credits = d <= 1 ? price.first : price.second + price.step * (d - 2);
  if (/^viduq2/.test(model)) {
    if (body.audio === true && (action === 'img2video' || action === 'reference2video')) credits += 15;
    if (body.is_rec === true) credits += 10;
  }
  return credits;
}

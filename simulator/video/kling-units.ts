// What Kling deducts for a video, reported as `final_unit_deduction`: units per second of the requested duration, by
// model, `mode` (std = 720p, pro = 1080p) and `sound`. Rates from Kling's API price page (kling.ai/document-api/
// pricing/base/video) as researched in the notes of 2026-11-27 on Kling and Vidu (1 unit = $0.14); the gateway bills
// this figure.

/** Tenths of a unit per second: [std, pro] silent, and [std, pro] with sound where the model renders sound. */
interface Rate { silent: [number, number]; sound?: [number, number]; voice?: number }

const RATES: Record<string, Rate> = {
  'kling-v3': { silent: [6, 8], sound: [9, 12] },
  // The table has no 720p sound tier (Kling renders sound at 1080p only); whether the legacy API refuses std + sound or
  // bills it as pro is unknown, as researched: the simulator bills pro.
  'kling-v2-6': { silent: [3, 5], sound: [10, 10], voice: 12 },
  'kling-v2-5-turbo': { silent: [3, 5] },
  'kling-v2-1': { silent: [4, 7] },
  // The master models have one 1080p tier; `mode` does not change the price (as researched).
  'kling-v2-1-master': { silent: [20, 20] },
  'kling-v2-master': { silent: [20, 20] },
  'kling-v2': { silent: [20, 20] },
  'kling-v1-6': { silent: [4, 7] },
};

/** Models the table does not list (kling-v1 included) bill at kling-v2-6's rates, sound included. */
const rateOf = (model: string): Rate => RATES[model] ?? RATES['kling-v2-6'];

export function supportsSound(model: string): boolean {
  return rateOf(model).sound !== undefined;
}

/**
 * Units for one clip, as Kling's decimal string (`"1.5"`): rate × seconds. Voice control (`voice_list` with sound on)
 * has its own kling-v2-6 rate. Tenths keep the arithmetic exact (0.3 × 7 would print 2.0999…).
 */
export function klingUnits(body: Record<string, unknown>, model: string): string {
  const rate = rateOf(model);
  const tier = body.mode === 'pro' ? 1 : 0;
  const sound = body.sound === 'on' && rate.sound !== undefined;
  const voice = sound && rate.voice !== undefined && Array.isArray(body.voice_list) && body.voice_list.length > 0;
  const tenths = voice ? rate.voice! : sound ? rate.sound![tier] : rate.silent[tier];
  const seconds = Number(body.duration ?? '5');
  return String((tenths * seconds) / 10);
}

// What a ledger entry records beside its amount: the tags it carries (user, model, route, channel, usage by class).
// Apart from the ledger's contract so that the usage rollups (usage.ts) and the ledger both import it downward.

/** What an entry is for: known when the money is reserved (user, model, route) and when it is closed (the rest). */
export interface EntryTags {
  user?: string | null; model?: string | null; route?: string | null; channel?: string | null;
  prompt_tokens?: number | null; completion_tokens?: number | null;
  /** What the model is priced per besides tokens: seconds of video, images, calls. */
  units?: number | null;
  /** Prompt tokens read from a prompt cache (all modalities). */
  cached_tokens?: number | null;
  /** Prompt tokens written to a prompt cache (all lifetimes). */
  cache_write_tokens?: number | null;
  /** Completion tokens spent reasoning. */
  reasoning_tokens?: number | null;
  /** Audio tokens, input plus output. */
  audio_tokens?: number | null;
  /** Image tokens, input plus output. */
  image_tokens?: number | null;
  /** What the vendor itself reported charging, in quota units; null when it reports nothing. */
  vendor_charged?: number | null;
}

/** The counters that explain a close's usage by token class (and the vendor's own charge), summed like its tokens. */
export const usageClasses = ['cached_tokens', 'cache_write_tokens', 'reasoning_tokens', 'audio_tokens', 'image_tokens', 'vendor_charged'] as const satisfies readonly (keyof EntryTags)[];
export type UsageClass = (typeof usageClasses)[number];

/** Known when a request is closed: the channel that served it and what it used. */
export type CloseTags = Pick<EntryTags, 'channel' | 'prompt_tokens' | 'completion_tokens' | 'units' | UsageClass>;

export interface LedgerEntry extends EntryTags {
  entry: string; account: string; request: string; kind: string; amount: number; at: number;
  /** On a settle: usage beyond the reservation that was not charged (the charge is capped at the reservation). */
  uncharged?: number;
  /**
   * On a `spend` (a budget level's charges of one write-behind flush, summed: held-batch.ts): how many requests' closes
   * it sums. Absent on every other entry.
   */
  requests?: number;
}

/** The tags every entry carries, null when unknown (a topup has no model; a refund by recovery no channel). */
export const tagNames = ['user', 'model', 'route', 'channel', 'prompt_tokens', 'completion_tokens', 'units', ...usageClasses] as const;

export function tagsOf(t: EntryTags | undefined): Required<{ [K in keyof EntryTags]: EntryTags[K] | null }> {
  return {
    user: t?.user ?? null, model: t?.model ?? null, route: t?.route ?? null, channel: t?.channel ?? null,
    prompt_tokens: t?.prompt_tokens ?? null, completion_tokens: t?.completion_tokens ?? null, units: t?.units ?? null,
    cached_tokens: t?.cached_tokens ?? null, cache_write_tokens: t?.cache_write_tokens ?? null, reasoning_tokens: t?.reasoning_tokens ?? null,
    audio_tokens: t?.audio_tokens ?? null, image_tokens: t?.image_tokens ?? null, vendor_charged: t?.vendor_charged ?? null,
  };
}

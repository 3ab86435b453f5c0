// What a request used, as its vendor reported it: read from answers here (usage-paths.ts), priced by billing, kept by
// the request log. At the bottom of the layer that reads it, so every layer above shares one type.

/**
 * Every prompt and completion token, and the parts of those totals the vendor reports apart (`details`: cache reads
 * and writes, reasoning, audio, images; see billing/token-classes.ts). A task's vendor may report the seconds of
 * media it billed. `units`: the billable units the vendor reports (a rerank's search units), charged at a `per_call`
 * price instead of those asked.
 */
export interface Usage { prompt_tokens: number; completion_tokens: number; total_tokens?: number; details?: UsageDetails; seconds?: number; units?: number }

/** Counts by name (`cached`, `cache_write`, `cache_write_1h`, `input_audio`, `reasoning`, …), each part of a total. */
export type UsageDetails = Record<string, number>;

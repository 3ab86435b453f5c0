/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * The vendor's id of the task (stored as a string; `{upstream_id}` in poll and content paths). Required in batch polls and reconcile answers, where it says which task the entry is about; a single poll may leave it out.
 */
export type UpstreamId = string | number;
/**
 * The vendor's word for the task's state, looked up in the operation's `status_map` (the unified words queued, in_progress, completed and failed are taken as they are). A word the map does not know leaves the task as it was: it is polled again.
 */
export type UpstreamStatus = string | number;
/**
 * Percent done, as a number or a string such as "45%"; kept within 0-99 until the task completes (then 100) and never moves back. Absent or null: 0 while queued, 50 while in progress.
 */
export type UpstreamProgress = number | string | null;
/**
 * Where the result can be downloaded (http or https; any other string is ignored). Stored once given and served through the gateway's content route, never handed to the client. Null or absent while there is none.
 */
export type ResultUrl = string | null;
/**
 * More result URLs, stored after `result_url`.
 */
export type ResultUrls = ResultUrl[];
/**
 * The vendor's failure reason, shown to the client when the task fails (an object is stored as its JSON text; cut at 500 characters). An empty string, null or absence means none.
 */
export type UpstreamError = string | {} | null;
/**
 * What the vendor reports the finished task used, when it bills by usage (Ark's output tokens, DashScope's seconds of video): the task is charged from it, never above its reservation. Absent: the task is charged its reservation (the price of what was asked).
 */
export type TaskUsage = {
  prompt_tokens?: number;
  completion_tokens?: number;
  /**
   * Seconds of media billed.
   */
  seconds?: number;
  /**
   * Parts of the token totals by class, as in routes.yaml usage `details` (cached, cache_write, input_audio, input_image, reasoning, output_audio, output_image).
   */
  details?: {
    [k: string]: number;
  };
} | null;
/**
 * What the vendor says it charged for the task, in its own billing unit (Kling's `final_unit_deduction`, Vidu's `credits`; a number or a decimal string): kept beside the gateway's charge, converted by the model's `price.vendor_unit`, for reconciliation.
 */
export type VendorCharge = number | string | null;

/**
 * One task's state as a poll `response` transform reports it (src/tasks/refresh.ts, src/tasks/status-map.ts). A poll answer is one of these or an array of them; in a batch poll (`poll.batch`) every entry names its `upstream_id`, entries naming tasks that were not asked about are ignored, and a task without an entry keeps its state. Keys the engine does not read are refused: whatever they carry would be lost.
 */
export interface PollResult {
  upstream_id?: UpstreamId;
  status: UpstreamStatus;
  progress?: UpstreamProgress;
  result_url?: ResultUrl;
  result_urls?: ResultUrls;
  error?: UpstreamError;
  vars?: TaskVars;
  extra?: TaskExtra;
  usage?: TaskUsage;
  vendor_charge?: VendorCharge;
}
/**
 * Values kept on the task and merged into the ones it has: each fills `{name}` in the operation's poll and content paths. Numbers are stored as strings; null values are dropped.
 */
export interface TaskVars {
  /**
   * One value (a string or a number; null drops it).
   */
  [k: string]: string | number | null;
}
/**
 * Vendor data a route's `answer` may show (as `extra` in the task's public view), merged into what the task holds; dropped when its JSON exceeds 16,384 characters.
 */
export interface TaskExtra {
  [k: string]: unknown;
}

/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * Output of a task operation's `response` transform: the vendor's answer to a submit (src/policies/task-submit.ts). One outcome: `reject` relays the vendor's refusal in its own words, else a non-empty `error` refuses the task (task_failed), else `upstream_id` (or `id`) accepts it and the other fields seed it like a first poll (status absent: queued). Nothing is charged unless the task is accepted. Keys the engine does not read are refused: whatever they carry would be lost.
 */
export type TaskSubmitResult = (
  | {
      /**
       * A refusal in the vendor's own words.
       */
      reject: {};
    }
  | {
      /**
       * A refusal needs a reason.
       */
      error: string | {};
    }
  | {
      /**
       * An accepted task needs the vendor's id.
       */
      upstream_id: string | number;
    }
  | {
      /**
       * An accepted task needs the vendor's id.
       */
      id: string | number;
    }
) & {
  upstream_id?: UpstreamId;
  /**
   * Read instead of `upstream_id` when that is absent or null.
   */
  id?: string | number | null;
  status?: UpstreamStatus;
  progress?: UpstreamProgress;
  result_url?: ResultUrl;
  result_urls?: ResultUrls;
  /**
   * The vendor refused the task: the client gets task_failed with this reason (an object is sent as its JSON text; cut at 500 characters). An empty string or null means no refusal.
   */
  error?: string | {} | null;
  vars?: TaskVars;
  extra?: TaskExtra;
  reject?: SubmitRejection;
};
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
/**
 * The vendor refused the task in its own format (e.g. an image-art code 24): answered to the client as it is, with this status; nothing is charged.
 */
export interface SubmitRejection {
  /**
   * HTTP status of the client's answer.
   */
  status: number;
  /**
   * The client's answer body, sent as JSON.
   */
  body: {
    [k: string]: unknown;
  };
}

/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * A page of the caller's videos (task action `page`, src/policies/task-page.ts), in OpenAI's list shape.
 */
export interface VideoList {
  /**
   * Always list.
   */
  object: 'list';
  /**
   * The videos of this page, each as a query of it answers.
   */
  data: Video[];
  /**
   * The id of the first video of the page; null when the page is empty.
   */
  first_id: string | null;
  /**
   * The id of the last video of the page (the next page's `after`); null when the page is empty.
   */
  last_id: string | null;
  /**
   * Whether another page follows.
   */
  has_more: boolean;
}
/**
 * A video task as a task route without its own `answer` shows it (src/tasks/answer.ts): OpenAI's video object. A submit answers the first seven fields (and `remixed_from_video_id` for a remix); a query, a listing or a delete answers all of them, and `video_url` once the task has completed.
 */
export interface Video {
  /**
   * The public task id (`task_…`, never the vendor's), for queries, downloads and deletes.
   */
  id: string;
  /**
   * The same id, kept for legacy clients.
   */
  task_id: string;
  /**
   * Always video.
   */
  object: 'video';
  /**
   * The model as the client named it.
   */
  model: string;
  /**
   * Where the task stands.
   */
  status: 'queued' | 'in_progress' | 'completed' | 'failed';
  /**
   * Percent done: 0 to 99 until the task completes, then 100; never moves back.
   */
  progress: number;
  /**
   * Unix seconds when the task was submitted.
   */
  created_at: number;
  /**
   * Unix seconds when the task finished; null until then.
   */
  completed_at?: number | null;
  /**
   * Unix seconds after which the result may be gone; null when unknown.
   */
  expires_at?: number | null;
  /**
   * The billed duration in seconds, as a string; null when the request named none.
   */
  seconds?: string | null;
  /**
   * The size the request asked for; null when it named none.
   */
  size?: string | null;
  /**
   * The request's prompt; null when it had none.
   */
  prompt?: string | null;
  /**
   * The id of the caller's video this one was remixed from; null otherwise.
   */
  remixed_from_video_id?: string | null;
  /**
   * Why the task failed; null unless it did.
   */
  error?: {
    /**
     * A short failure code (the vendor's, or the gateway's such as `cancelled` or `submit_interrupted`).
     */
    code: string;
    /**
     * Human-readable reason.
     */
    message: string;
  } | null;
  /**
   * Once completed: the gateway's own download route for the result (never a vendor URL).
   */
  video_url?: string;
}

/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * One finished request, task or topup in the request log (src/request-log/): what GET /admin/requests and a token's own GET /v1/requests answer, one per record. Times are unix milliseconds.
 */
export interface RequestRecord {
  /**
   * The request id (`req_…`, the `x-request-id` header), the task id (`task_…`) or the topup's reference.
   */
  id: string;
  /**
   * A request the gateway answered, a task that finished (its submit is a request of its own), or a topup.
   */
  kind: 'request' | 'task' | 'topup';
  /**
   * When it finished (ms).
   */
  at: number;
  /**
   * When it began: the request's arrival, the task's submit (ms).
   */
  started_at?: number | null;
  /**
   * The token id (`tok_…`), never its key.
   */
  token?: string | null;
  user?: string | null;
  group?: string | null;
  /**
   * The route id (routes.yaml), or who topped up (`cli`, `admin`).
   */
  route?: string | null;
  method?: string | null;
  /**
   * The path without its query.
   */
  path?: string | null;
  /**
   * The model the request asked for.
   */
  model?: string | null;
  /**
   * The model the vendor's answer names, or the upstream model a task ran on.
   */
  served_model?: string | null;
  /**
   * The channel that answered.
   */
  channel?: string | null;
  /**
   * Every channel tried, in order.
   */
  attempts?: {
    channel: string;
    status?: number;
    error?: string;
    ms: number;
  }[];
  /**
   * The HTTP status the client got (499: it left first); a task's is 200 when it completed, else its error's.
   */
  status?: number | null;
  /**
   * The contract's error code, or a failed task's.
   */
  error_code?: string | null;
  /**
   * How a stream ended (done, client_gone, upstream_cut…), or a task's final status.
   */
  outcome?: string | null;
  /**
   * Why the gateway refused or cut it, for the operator.
   */
  reason?: string | null;
  /**
   * Tokens as the vendor reported them, by class.
   */
  usage?: {
    prompt_tokens?: number;
    completion_tokens?: number;
    cached_tokens?: number;
    cache_write_tokens?: number;
    reasoning_tokens?: number;
    audio_tokens?: number;
    image_tokens?: number;
    seconds?: number;
  } | null;
  /**
   * The vendor reported no usage (a cut stream): it was estimated.
   */
  usage_estimated?: boolean | null;
  /**
   * What the model is priced per besides tokens: seconds of media, images, calls.
   */
  units?: number | null;
  /**
   * The task a submit reserved for (`task_…`), whether its vendor accepted it or refused it: GET /admin/requests/{task id} finds the submit with the task.
   */
  task?: string | null;
  /**
   * Quota units reserved before the vendor was asked.
   */
  reserved?: number | null;
  /**
   * Quota units charged (a topup: the amount added).
   */
  charged?: number | null;
  /**
   * What usage beyond the reservation would have cost: not taken.
   */
  uncharged?: number | null;
  /**
   * What the vendor said it charged, in quota units.
   */
  vendor_charged?: number | null;
  /**
   * The charge's lines: [item, quantity, rate, units] (a token class and its rate per million, `second`, `call`).
   */
  charge_lines?: [string, number, number, number][];
  /**
   * The prompt-size tier the charge used (its threshold), if any.
   */
  tier?: number | null;
  /**
   * The request's options that moved its price from the defaults.
   */
  price?: {
    [k: string]: string | number | boolean;
  } | null;
  /**
   * From arrival to the end of the answer (a task: submit to its end).
   */
  latency_ms?: number | null;
  /**
   * From arrival to the answer's head.
   */
  first_byte_ms?: number | null;
  /**
   * The client's address.
   */
  client?: string | null;
}

/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * Shape B: the 429 of a task route with `saturated_shape: B` (the unified video routes) when the group's in-flight task limit or the vendor's load is saturated, or a rate limit is reached.
 */
export interface ErrorShapeB {
  /**
   * Always too_many_requests.
   */
  code: string;
  /**
   * Human-readable text ending with `(request id: req_…)`.
   */
  message: string;
  /**
   * Always null.
   */
  data: null;
}

/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /art/task/list-by-condition: the caller's image-art tasks by id.
 */
export interface ArtTaskListRequest {
  /**
   * Task ids (as the submit answered them), at most 100; unknown ids and other users' tasks are left out of the answer.
   *
   * @maxItems 100
   */
  ids: string[];
}

/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /music/fetch: the caller's music tasks by id.
 */
export interface MusicFetchRequest {
  /**
   * Task ids (as the submit answered them), at most 100; unknown ids and other users' tasks are left out of the answer.
   *
   * @maxItems 100
   */
  ids: string[];
}

/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /v1/videos/{id}/remix (JSON or multipart/form-data): the change to make. Model, seconds and size are the source video's.
 */
export interface VideosRemixRequest {
  /**
   * What to change.
   */
  prompt: string;
}

/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * Multi-mode family: at most 5 images; a reference video (video, video_url or input_video) of at most 15 MB (20,971,600 characters as Base64).
 */
export interface MultiModeRules {
  /**
   * At most 5.
   *
   * @maxItems 5
   */
  images?: unknown[];
  /**
   * At most 15 MB.
   */
  video?: string;
  /**
   * At most 15 MB.
   */
  video_url?: string;
  /**
   * At most 15 MB.
   */
  input_video?: string;
}

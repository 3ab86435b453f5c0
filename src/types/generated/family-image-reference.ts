/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * Vendor families with `image`: first frame in `image`, last frame in `metadata.last_frame_url`, reference-to-video with at most 3 `images`.
 */
export interface ImageReferenceRules {
  /**
   * At most 3.
   *
   * @maxItems 3
   */
  images?: unknown[];
  metadata?: {
    /**
     * Last frame; needs `image` as the first frame.
     */
    last_frame_url?: string;
  };
}

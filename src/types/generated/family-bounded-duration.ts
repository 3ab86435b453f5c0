/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * Bounded-duration family: 4 to 11 seconds; not suited to reference-to-video.
 */
export interface BoundedDurationRules {
  /**
   * 4 to 11.
   */
  seconds?: number | string;
  /**
   * 4 to 11.
   */
  duration?: number | string;
  /**
   * Reference images are not supported by this family.
   *
   * @maxItems 0
   */
  images?: unknown[];
}

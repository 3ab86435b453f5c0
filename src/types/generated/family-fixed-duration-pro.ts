/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * Fixed-duration family, pro tier: the duration is fixed at 10 s.
 */
export interface FixedDurationProRules {
  /**
   * Must be 10.
   */
  seconds?: '10' | 10;
  /**
   * Must be 10.
   */
  duration?: '10' | 10;
}

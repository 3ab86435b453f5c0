/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /music/submit/lyrics in the music wrapper's format.
 */
export interface MusicLyricsRequest {
  /**
   * What the lyrics are about.
   */
  prompt: string;
}

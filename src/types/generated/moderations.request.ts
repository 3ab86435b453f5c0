/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /v1/moderations (OpenAI's shape): text, a batch of texts, or text and an image as content parts (omni-moderation models).
 */
export interface ModerationsRequest {
  /**
   * Moderation model (default omni-moderation-latest).
   */
  model?: string;
  /**
   * A string, an array of strings (one result each), or an array of `text` and `image_url` parts (one result for all of them).
   */
  input:
    | string
    | [string, ...string[]]
    | [ModerationTextPart | ModerationImagePart, ...(ModerationTextPart | ModerationImagePart)[]];
}
export interface ModerationTextPart {
  type: 'text';
  text: string;
}
export interface ModerationImagePart {
  type: 'image_url';
  image_url: {
    /**
     * An https URL or a base64 data URL.
     */
    url: string;
  };
}

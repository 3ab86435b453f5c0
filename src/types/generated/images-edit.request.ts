/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /v1/images/edits (multipart/form-data): image file(s), optional mask, prompt.
 */
export interface ImagesEditRequest {
  /**
   * Model name (default gpt-image-2.6-sunburst).
   */
  model?: string;
  /**
   * The edit.
   */
  prompt: string;
  /**
   * One uploaded image, or several (`image[]`).
   */
  image: {
    [k: string]: unknown;
  };
  /**
   * PNG mask with alpha.
   */
  mask?: {
    [k: string]: unknown;
  };
  n?: string | number;
  size?: string;
  response_format?: 'url' | 'b64_json';
}

/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /v1/images/generations (OpenAI shape) with the gateway's size forms and resolutions.
 */
export interface ImagesGenerationRequest {
  /**
   * Model name.
   */
  model: string;
  /**
   * What to draw.
   */
  prompt: string;
  /**
   * Number of images.
   */
  n?: number;
  /**
   * `<w>x<h>`, `<w>*<h>`, a ratio such as `16:9`, or `auto`.
   */
  size?: string;
  /**
   * Output tier for ratio sizes: 1k, 2k or 4k (default 1k).
   */
  resolution?: '1k' | '2k' | '4k';
  /**
   * url or b64_json; some upstreams return only one of them.
   */
  response_format?: 'url' | 'b64_json';
  /**
   * Reference images (URL or Base64).
   *
   * @maxItems 16
   */
  image?: string[];
  quality?: string;
  style?: string;
  user?: string;
}

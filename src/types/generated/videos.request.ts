/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /v1/videos (JSON or multipart/form-data). Files arrive as {filename, content_type, size, data}.
 */
export interface VideosRequest {
  /**
   * Model name.
   */
  model: string;
  /**
   * Text description.
   */
  prompt: string;
  /**
   * Duration in seconds (string in OpenAI's API).
   */
  seconds?: string | number;
  /**
   * Duration in seconds.
   */
  duration?: string | number;
  /**
   * `<w>x<h>` size.
   */
  size?: string;
  /**
   * Ratio hint.
   */
  aspect_ratio?: string;
  /**
   * First-frame image (URL or Base64).
   */
  image?: string;
  /**
   * Reference images.
   */
  images?: string[];
  /**
   * Reference image(s): URL/Base64 string, uploaded file, or several.
   */
  input_reference?: {
    [k: string]: unknown;
  };
  /**
   * First frame (multipart file or URL).
   */
  first_frame_image?: {
    [k: string]: unknown;
  };
  /**
   * Last frame (multipart file or URL).
   */
  last_frame_image?: {
    [k: string]: unknown;
  };
  first_image_url?: string;
  last_image_url?: string;
  video?: string;
  video_url?: string;
  input_video?: string;
  /**
   * Free extension object.
   */
  metadata?: {} | string;
}

/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /v1/video/generations and POST /v1/video/create: one entry for text-to-video and image-to-video. Fields the chosen channel does not use are ignored.
 */
export type VideoGenerationRequest = {
  [k: string]: unknown;
} & {
  /**
   * Model name, used for billing and dispatch.
   */
  model: string;
  /**
   * Text description; required unless `content` carries the text.
   */
  prompt?: string;
  /**
   * First-frame image as URL or Base64.
   */
  image?: string;
  /**
   * Multi-image reference input.
   */
  images?: string[];
  /**
   * Extra reference material.
   */
  input_reference?: string | string[];
  /**
   * Target duration in seconds.
   */
  duration?: number | string;
  /**
   * Duration in the compatible-video style (`5`, `10`, `15`).
   */
  seconds?: string | number;
  /**
   * Size or ratio hint: `<w>x<h>`, `<w>*<h>` or `<rw>:<rh>`.
   */
  size?: string;
  /**
   * Ratio hint such as `16:9`.
   */
  aspect_ratio?: string;
  /**
   * Vendor-specific extension parameters.
   */
  metadata?: {};
  /**
   * Asset-based family: typed content items with roles.
   *
   * @minItems 1
   */
  content?: [
    {
      type: 'text' | 'image_url' | 'video_url' | 'audio_url';
      role?: string;
    },
    ...{
      type: 'text' | 'image_url' | 'video_url' | 'audio_url';
      role?: string;
    }[]
  ];
};

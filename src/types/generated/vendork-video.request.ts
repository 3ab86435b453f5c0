/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * The compatible vendor's own text2video / image2video body (routes under /vendork/v1/videos/*).
 */
export type VendorKVideoRequest = {
  [k: string]: unknown;
} & {
  /**
   * Model (the vendor's field name).
   */
  model_name?: string;
  /**
   * Alternative to model_name.
   */
  model?: string;
  /**
   * Text description.
   */
  prompt: string;
  negative_prompt?: string;
  cfg_scale?: number;
  mode?: 'std' | 'pro';
  aspect_ratio?: '16:9' | '9:16' | '1:1';
  /**
   * A string such as "5" or "10".
   */
  duration?: string | number;
  image?: string;
  image_tail?: string;
  camera_control?: {};
  callback_url?: string;
  external_task_id?: string;
};

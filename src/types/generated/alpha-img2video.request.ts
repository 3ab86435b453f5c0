/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /alpha/ent/v2/img2video: exactly one start frame.
 */
export type AlphaImageToVideoRequest = AlphaFields & {
  /**
   * Exactly one image.
   *
   * @minItems 1
   * @maxItems 1
   */
  images: [AlphaImage, ...AlphaImage[]];
};
/**
 * Image URL, or a Base64 data URI data:image/<type>;base64,<data>. png/jpeg/jpg/webp, at least 128x128 pixels, aspect ratio within 1:4..4:1, at most 50M.
 */
export type AlphaImage = string;

/**
 * The vendor's common request fields and the alphaq2 duration/resolution rule.
 */
export interface AlphaFields {
  /**
   * Model.
   */
  model?:
    'alphaq3-pro' | 'alphaq2-pro' | 'alphaq2-turbo' | 'alphaq2-pro-fast' | 'alphaq1' | 'alphaq1-classic' | 'alpha2.0';
  /**
   * Text description; may refer to subjects as @<subject_id>.
   */
  prompt?: string;
  /**
   * Output video with dialogue and background sound.
   */
  audio?: boolean;
  /**
   * Global voice id.
   */
  voice_id?: string;
  /**
   * Let the system recommend a prompt.
   */
  is_rec?: boolean;
  /**
   * Add background music.
   */
  bgm?: boolean;
  /**
   * Seconds; alphaq2 series 1 to 10 (default 5).
   */
  duration?: number;
  /**
   * 0 or absent: random.
   */
  seed?: number;
  /**
   * 540p, 720p or 1080p (default 720p).
   */
  resolution?: '360p' | '540p' | '720p' | '1080p';
  /**
   * Aspect ratio.
   */
  aspect_ratio?: '16:9' | '9:16' | '1:1' | '4:3' | '3:4';
  movement_amplitude?: 'auto' | 'small' | 'medium' | 'large';
  /**
   * Generate in off-peak periods.
   */
  off_peak?: boolean;
  /**
   * Add a watermark.
   */
  watermark?: boolean;
  /**
   * 1 top-left, 2 top-right, 3 bottom-right, 4 bottom-left.
   */
  wm_position?: number;
  /**
   * Watermark image URL.
   */
  wm_url?: string;
  /**
   * Pass-through, not processed.
   */
  payload?: string;
  /**
   * A JSON-formatted string, passed through.
   */
  meta_data?: string;
  callback_url?: string;
}

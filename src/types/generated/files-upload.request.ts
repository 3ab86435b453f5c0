/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /v1/files (multipart/form-data), in OpenAI's shape: a batch input file (JSON Lines: one request a line, `{custom_id, method, url, body}`) and its purpose. Fields arrive as text, as a form sends them.
 */
export interface FilesUploadRequest {
  /**
   * The file, uploaded as a file part.
   */
  file: {
    /**
     * Its name, as the client gave it (kept, at most 256 characters).
     */
    filename: string;
    size: number;
  };
  /**
   * What the file is for: `batch` (the route's `files.purpose`).
   */
  purpose: string;
  /**
   * What the expiry counts from: `created_at`.
   */
  'expires_after[anchor]'?: 'created_at';
  /**
   * Seconds the file is kept after its creation (the route's `files.expires_s` bounds).
   */
  'expires_after[seconds]'?: string | number;
}

/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * A page of the caller's files (`GET /v1/files`), in OpenAI's list shape.
 */
export interface FileList {
  /**
   * Always list.
   */
  object: 'list';
  /**
   * The files of this page.
   */
  data: FileObject[];
  /**
   * The id of the first file of the page; null when the page is empty.
   */
  first_id: string | null;
  /**
   * The id of the last file of the page (the next page's `after`); null when the page is empty.
   */
  last_id: string | null;
  /**
   * Whether another page follows.
   */
  has_more: boolean;
}
/**
 * One of the caller's files (policy `files`, src/files/): OpenAI's file object. The bytes are at the vendor; `GET /v1/files/{id}/content` streams them.
 */
export interface FileObject {
  /**
   * The gateway's id (never the vendor's).
   */
  id: string;
  /**
   * Always file.
   */
  object: 'file';
  /**
   * Its size in bytes.
   */
  bytes: number;
  /**
   * Unix seconds.
   */
  created_at: number;
  /**
   * Unix seconds: when the file and its record go.
   */
  expires_at: number | null;
  filename: string;
  /**
   * `batch` for an upload, `batch_output` for a batch's output and error files.
   */
  purpose: string;
  /**
   * Always `processed`: a file is recorded once it is whole at the vendor.
   */
  status: 'uploaded' | 'processed' | 'error';
  status_details?: string | null;
}

/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * Output of a files operation's `response` transform: the vendor's answer to an upload (src/files/upload.ts), naming the vendor's id of the stored file. Keys the engine does not read are refused: whatever they carry would be lost.
 */
export interface FileStored {
  /**
   * The vendor's id of the file (the gateway's record maps its own id to it).
   */
  upstream_id: string;
}

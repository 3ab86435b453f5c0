/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * Output of a `request` or `poll.request` transform: the body sent to the vendor (src/transform/build-call.ts, src/tasks/refresh.ts). Always an object: JSON-encoded, or for `encoding: multipart` one form field per key (files as {filename, content_type, size, data}, e.g. from $toFile; an array of files becomes several parts; other objects are sent as JSON text; null fields are left out). What the keys are is the vendor's business.
 */
export interface VendorRequest {
  [k: string]: unknown;
}

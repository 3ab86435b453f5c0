/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * Output of a `content.resolve` transform: the http(s) URL a completed task's result is streamed from (src/policies/task-content.ts), picked from the JSON the content path answered. It is fetched without the channel's auth, and from a public address only unless the channel sets private_network.
 */
export type ContentUrl = string;

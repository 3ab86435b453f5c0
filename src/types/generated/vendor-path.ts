/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * Output of a `path_expr` or `reconcile.path_expr` transform: the upstream path (with any query string) appended to the channel's base_url as it is: no placeholder is filled and nothing is encoded.
 */
export type VendorPath = string;

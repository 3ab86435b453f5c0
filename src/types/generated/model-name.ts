/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * Output of a route's `model_expr`: the public model the request is billed and dispatched as (src/pipeline/resolve-model.ts). Anything but a non-empty string is refused with invalid_request; a name without a price or channel for the caller's group with model_not_found.
 */
export type ModelName = string;

/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /v1beta/models/{model}:countTokens: `contents`, or a whole `generateContentRequest`.
 */
export type GeminiCountTokensRequest = {
  [k: string]: unknown;
} & {
  contents?: {}[];
  generateContentRequest?: {};
};

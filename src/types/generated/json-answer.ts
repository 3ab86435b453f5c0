/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * Output of the `response` transform of an operation served by the `json` policy (src/policies/json.ts) or by a task `relay` route (src/policies/task-relay.ts): the client's body, sent as JSON.
 */
export type JsonAnswer =
  | {
      [k: string]: unknown;
    }
  | unknown[];

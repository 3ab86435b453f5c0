/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * Output of a task route's `answer` (over the task's public view, src/records/task-record.ts publicView; also the body POSTed to callbacks) or `list_answer` (over the array of answers, src/policies/task-query.ts): the client's 200 body in the family's own shape.
 */
export type TaskAnswer =
  | {
      [k: string]: unknown;
    }
  | unknown[];

/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * One model the calling token may use (policy `models`, src/policies/models.ts), as OpenAI's model object.
 */
export interface Model {
  /**
   * The model's public name, as requests name it.
   */
  id: string;
  /**
   * Always model.
   */
  object: 'model';
  /**
   * A fixed Unix time: the list is config, not an event.
   */
  created: number;
  /**
   * The model's `owned_by` in channels.yaml, else switchyard.
   */
  owned_by: string;
}

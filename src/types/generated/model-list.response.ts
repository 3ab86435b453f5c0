/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * The models the calling token may use (policy `models` without an id), in OpenAI's list shape.
 */
export interface ModelList {
  /**
   * Always list.
   */
  object: 'list';
  /**
   * The models, sorted by name.
   */
  data: Model[];
}
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
  /**
   * The endpoints that can call this model for the caller's group, sorted: the `endpoint_type` of each route in routes.yaml whose operation a channel of the group serves for it (e.g. openai, openai-response, anthropic, gemini, embeddings, image-generation, openai-video; a route without one: its id). new-api's extension field; clients that do not know it ignore it.
   *
   * @minItems 1
   */
  supported_endpoint_types: [string, ...string[]];
}

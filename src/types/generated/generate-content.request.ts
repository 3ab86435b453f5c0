/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /v1beta/models/{model}:generateContent in the native content format.
 */
export interface GenerateContentRequest {
  /**
   * @minItems 1
   */
  contents: [
    {
      role?: string;
      /**
       * @minItems 1
       */
      parts: [{}, ...{}[]];
    },
    ...{
      role?: string;
      /**
       * @minItems 1
       */
      parts: [{}, ...{}[]];
    }[]
  ];
  generationConfig?: {
    imageConfig?: {
      aspectRatio?: '1:1' | '2:3' | '3:2' | '3:4' | '4:3' | '4:5' | '5:4' | '9:16' | '16:9' | '21:9';
      imageSize?: '1K' | '2K' | '4K';
    };
  };
}

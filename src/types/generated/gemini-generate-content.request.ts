/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /v1beta/models/{model}:generateContent and :streamGenerateContent on a chat model (Google's GenerateContentRequest). The gateway checks the fields it translates; the rest follow Google's API reference.
 */
export interface GeminiGenerateContentRequest {
  /**
   * @minItems 1
   */
  contents: [
    {
      role?: 'user' | 'model' | 'function';
      parts: {}[];
    },
    ...{
      role?: 'user' | 'model' | 'function';
      parts: {}[];
    }[]
  ];
  systemInstruction?:
    | string
    | {
        parts?: {}[];
      };
  tools?: {
    functionDeclarations?: {
      name: string;
    }[];
  }[];
  toolConfig?: {};
  generationConfig?: {
    temperature?: number;
    topP?: number;
    maxOutputTokens?: number;
    candidateCount?: number;
    /**
     * @maxItems 5
     */
    stopSequences?: string[];
    thinkingConfig?: {};
  };
}

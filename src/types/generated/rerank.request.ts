/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /v1/rerank in the shape Cohere's and Jina's clients send: a query and the documents to order by their relevance to it. Each channel's transforms map it to its vendor (vendors/cohere.yaml, vendors/jina.yaml). Documents are bounded as Cohere bounds them (10,000); the route's body limit bounds the total.
 */
export interface RerankRequest {
  /**
   * Rerank model name.
   */
  model: string;
  /**
   * The search query the documents are ranked against.
   */
  query: string;
  /**
   * The documents to rank: strings, or objects carrying a `text` (what Jina and Cohere v1 clients send). A result's `index` is a position in this list.
   *
   * @minItems 1
   * @maxItems 10000
   */
  documents: [string | RerankDocument, ...(string | RerankDocument)[]];
  /**
   * How many of the best results to return (default: all).
   */
  top_n?: number;
  /**
   * Whether each result carries its document's text as `document: {text}` (default false).
   */
  return_documents?: boolean;
  /**
   * Where a vendor truncates long documents (Cohere; default 4096); vendors without it ignore it.
   */
  max_tokens_per_doc?: number;
}
export interface RerankDocument {
  /**
   * The document's text.
   */
  text: string;
}

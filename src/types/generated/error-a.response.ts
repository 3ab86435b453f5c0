/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * Shape A, the contract's error body (src/http/errors.ts shapeA): every error the gateway answers itself, unless the route's family has its own shape (its `error_answer`, or its dialect's `error`) or the saturated task limit answers Shape B. The message ends with the request id, also sent in the `x-request-id` header.
 */
export interface ErrorShapeA {
  error: ErrorShapeADetail;
}
/**
 * What went wrong.
 */
export interface ErrorShapeADetail {
  /**
   * Human-readable text naming the field at fault where there is one, ending with `(request id: req_…)`.
   */
  message: string;
  /**
   * `invalid_request_error` for request and key faults, `platform_api_error` for the gateway's own; a route's `error_type` replaces it on every error of the route.
   */
  type: string;
  /**
   * Always the empty string, as the contract shows.
   */
  param: string;
  /**
   * The error code from the catalog (src/http/errors.ts), or a vendor's own code relayed with its 4xx status.
   */
  code: string;
}

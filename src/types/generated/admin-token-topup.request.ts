/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /admin/tokens/{id}/topup: quota units added to the balance. Send an `Idempotency-Key` header to make a retried topup count once.
 */
export interface AdminTokenTopupRequest {
  /**
   * Quota units to add, a whole number.
   */
  amount: number;
}

/* Generated from schemas/ by scripts/gen-types.mjs. Do not edit: run `npm run gen:types`. */

/**
 * POST /admin/users/{id}/topup: quota units added to the user's wallet. Send an `Idempotency-Key` header to make a retried topup count once.
 */
export interface AdminUserTopupRequest {
  /**
   * Quota units to add, a whole number.
   */
  amount: number;
}

/**
 * Accounts whose id starts with `~` are budget levels (a wallet, a cap, a team's period budget): they move money and
 * keep entries, but add nothing to the usage rollups, which count each request once, on its token's account.
 */
export const isBudgetLevel = (account: string) => account.charCodeAt(0) === 126;

/**
 * Which users rows are accounts. A deleted account leaves a tombstone: a
 * users row with no identity that holds its pseudonymised ledger and events
 * (docs/ACCOUNT.md, "Nothing links back"). A tombstone is no one's account:
 * nothing is written for it, administered on it or announced under its id,
 * so every write made for a fan by someone else (an event's reversal, an
 * admin's adjustment or ban) treats it as no fan at all.
 */
export function isAccount(user: { deletedAt: Date | null }): boolean {
  return user.deletedAt === null;
}

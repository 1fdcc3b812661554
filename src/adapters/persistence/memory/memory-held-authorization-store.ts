/** Held authorizations in memory: a map by key; a take is a compare-and-set on the holder it replaces. */
import type { HeldAuthorizationKey, HeldAuthorizationStore, Holder } from '../../../ports/held-authorization-store.js';
import type { MemoryDatabase, MemoryTx } from './memory-database.js';

const keyOf = (k: HeldAuthorizationKey) => `${k.network}|${k.asset}|${k.wallet}|${k.nonce}`;
const same = (a: Holder | null | undefined, b: Holder | null) => (a ?? null) === b || (a?.kind === b?.kind && a?.id === b?.id);

export class MemoryHeldAuthorizationStore implements HeldAuthorizationStore {
  constructor(
    private readonly db: MemoryDatabase,
    private readonly tx: MemoryTx | null,
  ) {}

  async holderOf(key: HeldAuthorizationKey): Promise<Holder | null> {
    const holder = this.db.heldAuthorizations.get(keyOf(key));
    return holder ? { ...holder } : null;
  }

  async take(key: HeldAuthorizationKey, holder: Holder, expected: Holder | null): Promise<boolean> {
    if (!same(this.db.heldAuthorizations.get(keyOf(key)), expected)) return false;
    this.db.set(this.tx, this.db.heldAuthorizations, keyOf(key), { kind: holder.kind, id: holder.id });
    return true;
  }
}

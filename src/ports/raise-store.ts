import type { Pledge, PledgeState, Raise, RaiseState } from '../domain/raise.js';

/**
 * Fair launches' raises and their pledges (src/domain/raise.ts, docs/decisions/0048). Every move
 * of a raise or a pledge is a compare-and-set on its state: what settles a raise exactly once.
 */
export interface RaiseStore {
  /** Inserts a raise (its token is new). */
  insert(raise: Raise): Promise<void>;
  get(tokenId: string): Promise<Raise | null>;
  /** Compare-and-set: stores `next` only if the stored state is still `from`. */
  update(next: Raise, from: RaiseState): Promise<boolean>;
  /** Raises with work to do at `now`: RAISING past their end, and COLLECTING; earliest end first, at most `limit`. */
  due(now: Date, limit: number): Promise<Raise[]>;
  /** Counts of raises by state (the metrics). */
  countByState(): Promise<Partial<Record<RaiseState, number>>>;

  insertPledge(pledge: Pledge): Promise<void>;
  getPledge(pledgeId: string): Promise<Pledge | null>;
  /** A raise's pledges (a wallet's only, whatever its letters' case, when `wallet` is given), oldest first. */
  pledgesOf(tokenId: string, wallet?: string): Promise<Pledge[]>;
  /** Compare-and-set on the pledge's state. */
  /** A wallet's PLEDGED pledges (any letter case), of every raise: the authorizations it has held for pledges now. */
  pledgedBy(wallet: string): Promise<Pledge[]>;
  updatePledge(next: Pledge, from: PledgeState): Promise<boolean>;
}

/**
 * Who may be named as a referrer (a trade's `referrer`, a token's `platformReferrer`; docs/api.md
 * "Fees and earnings", decision 0039): anyone but the service itself. A share paid to the
 * treasury is the treasury paying itself; one paid to a contract of ours — the factory, a
 * stablecoin, a launched token or its pair, the Uniswap router — can never be spent. Contracts in
 * general are not refused: a smart wallet is a contract too.
 */
import { ReferrerNotAllowed } from '../../domain/errors.js';
import { ALL_NETWORKS, NETWORKS, PAYMENT_ASSETS } from '../../domain/network.js';
import type { AppDeps } from '../kit/deps.js';

type ReferrerDeps = Pick<AppDeps, 'uow' | 'settings' | 'tokenIssuer' | 'dex' | 'ownAccounts'>;

/** Made once per application's dependencies: the addresses are fixed for the life of the process. */
const OWN_ADDRESSES = new WeakMap<ReferrerDeps, Map<string, string>>();

/** The service's own addresses (lower-case) and what each is, on every network. */
function ownAddresses(deps: ReferrerDeps): Map<string, string> {
  let own = OWN_ADDRESSES.get(deps);
  if (!own) OWN_ADDRESSES.set(deps, (own = collectOwnAddresses(deps)));
  return own;
}

function collectOwnAddresses(deps: ReferrerDeps): Map<string, string> {
  const own = new Map<string, string>();
  const add = (address: string | undefined, what: string) => {
    if (address && !own.has(address.toLowerCase())) own.set(address.toLowerCase(), what);
  };
  for (const n of ALL_NETWORKS) {
    add(deps.settings.payTo[n], "the service's treasury");
    add(deps.tokenIssuer.custody(n), "the service's custody");
    add(deps.tokenIssuer.factory(n), 'the LaunchFactory');
    for (const asset of PAYMENT_ASSETS) add(NETWORKS[n].assets[asset].address, `the ${asset} contract on ${n}`);
    if (deps.dex?.supports(n)) add(deps.dex.router(n), 'the Uniswap v2 router');
  }
  for (const [address, what] of Object.entries(deps.ownAccounts ?? {})) add(address, what);
  return own;
}

/** Throws REFERRER_NOT_ALLOWED when `address` (named in `field`) is the service's own. */
export async function checkReferrer(deps: ReferrerDeps, field: 'referrer' | 'platformReferrer', address: string | null | undefined): Promise<void> {
  if (address) await checkEarners(deps, [[field, address]]);
}

/**
 * The same for every wallet of a creator's splits (docs/api.md "Fees and earnings", decision
 * 0078): each `[field, address]` refused as a referrer would be, in one unit of work.
 */
export async function checkEarners(deps: ReferrerDeps, earners: readonly (readonly [field: string, address: string])[]): Promise<void> {
  for (const [field, address] of earners) {
    const what = ownAddresses(deps).get(address.toLowerCase());
    if (what) throw new ReferrerNotAllowed(field, address, what);
  }
  if (earners.length === 0) return;
  await deps.uow.run(async (s) => {
    for (const [field, address] of earners) {
      const token = await s.tokens.findByAddress(address);
      if (token) throw new ReferrerNotAllowed(field, address, token.what === 'token' ? `the contract of token ${token.tokenId}` : `the Uniswap v2 pair of token ${token.tokenId}`);
    }
  });
}

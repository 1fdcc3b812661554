/**
 * Step 1, the challenge: a request without a payment. A Sign-In-With-X proof names the wallet
 * (good once; a proof not taken is ignored and the 402 says why); an entrypoint that wallet paid
 * for lately answers without a payment (the access grant); anything else gets the 402 — the rules
 * checked and the price set as that wallet (or X-Wallet-Address) would pay, every offer priced and
 * held (the catalogue's own example body at its example's price: example-probe.ts). Nothing is
 * charged and no payment exists yet: the step has no compensation.
 */
import { ALL_NETWORKS, type Network } from '../../../domain/network.js';
import type { ResourceInfo } from '../../../ports/facilitator.js';
import type { AnyEntrypoint } from '../../kit/catalogue/entrypoint.js';
import { proveWallet, siwxDetails, type WalletProof } from '../extensions/wallet-proof.js';
import { examplePrice } from '../example-probe.js';
import { offersFor, type Price } from '../offers.js';
import { X402_VERSION, type PaymentRequiredObject } from '../requirements.js';
import type { PaidRequest, PipelineDeps } from './deps.js';
import type { Outcome } from './outcome.js';
import { hintedCaller } from './payer-network.js';
import { priceToAsk, withMaximum } from './pricing.js';

export async function challenge(deps: PipelineDeps, req: PaidRequest, input: unknown, requestHash: string): Promise<Outcome<'challenge' | 'granted'>> {
  const proof = await walletProof(deps, req.walletProof);
  const granted = proof?.ok ? await grantedAccess(deps, req.entrypoint, input, proof.wallet) : null;
  if (granted) return granted;
  // A proven wallet is the protocol-native hint: it wins over X-Wallet-Address.
  const wallet = proof?.ok ? proof.wallet : req.walletHint;
  const hinted = wallet ? await hintedCaller(deps, wallet) : undefined;
  // The catalogue's own example body is a crawler's probe: its 402 whatever the books hold (decision 0075).
  const example = examplePrice(deps.settings, req.entrypoint, requestHash);
  const prepared = example ? withMaximum(deps, req.entrypoint, input, example) : await priceToAsk(deps, req.entrypoint, input, hinted);
  const wanted = prepared.network ? [prepared.network] : hinted ? [hinted.network] : ALL_NETWORKS;
  // Only networks a payment can be taken on now: 503 before anyone signs when none can.
  const networks = deps.availability ? await deps.availability.usable(wanted) : wanted;
  const paymentRequired = await paymentRequiredFor(deps, req.resource, requestHash, networks, prepared);
  return { kind: 'challenge', paymentRequired, ...(proof && !proof.ok ? { siwx: siwxDetails(proof) } : {}) };
}

/**
 * The x402 PaymentRequired object: every offer (USDC, then EURC) per network, priced and held —
 * by `exact`, then by `batch-settlement` where it is offered, then, where the price is a maximum,
 * by `upto` — so a client that pays the first offer pays as it always did. A 402 for both
 * networks offers batch-settlement in USDC only: its header must pass a proxy's 4 KiB buffer
 * (docs/operations.md "Behind a proxy"); one that names the payer's network offers it in EURC too.
 */
export async function paymentRequiredFor(
  deps: PipelineDeps,
  resource: ResourceInfo,
  requestHash: string,
  networks: readonly Network[],
  price: Price,
  error?: string,
): Promise<PaymentRequiredObject> {
  const offers = await offersFor(deps, requestHash, networks, price);
  return {
    x402Version: X402_VERSION,
    ...(error === undefined ? {} : { error }),
    resource,
    accepts: [
      ...offers.map((o) => o.requirements),
      ...offers.flatMap((o) => (o.batch && (networks.length === 1 || o.asset === 'USDC') ? [o.batch] : [])),
      ...offers.flatMap((o) => (o.upto ? [o.upto] : [])),
    ],
  };
}

/** The wallet an unpaid request proves, or why its proof is not taken; never a refusal. */
async function walletProof(deps: PipelineDeps, header: string | undefined): Promise<WalletProof | undefined> {
  if (!header) return undefined;
  const proof = await proveWallet(deps, header);
  deps.metrics.increment('siwx_proofs_total', { result: proof.ok ? 'accepted' : 'ignored' });
  return proof;
}

/** An entrypoint the proven wallet paid for lately answers without a payment (granted by the application step). */
async function grantedAccess(deps: PipelineDeps, ep: AnyEntrypoint, input: unknown, wallet: string): Promise<Outcome<'granted'> | null> {
  if (!ep.grantsAccess) return null;
  const until = await deps.uow.run((s) => s.accessGrants.validUntil(wallet, ep.name, deps.clock.now()));
  if (!until) return null;
  const result: unknown = await ep.grantsAccess.serve(deps, input);
  deps.metrics.increment('access_grants_used_total');
  return { kind: 'granted', result, until };
}

/**
 * Sign-In-With-X (docs/api.md "Sign-In-With-X"): the SIGN-IN-WITH-X header of a request, as the wallet it proves — or
 * why it proves nothing. A proof is good once: its nonce is spent here, in the store, so a proof
 * seen on the wire cannot be replayed. A bad proof is never an error: the caller answers the
 * plain flow and says why in `details.siwx`.
 */
import type { Network } from '../../../domain/network.js';
import type { UnitOfWork } from '../../../ports/unit-of-work.js';
import type { WalletProofRejection, WalletProofVerifier } from '../../../ports/wallet-proof-verifier.js';

/** The request header (x402's SIGN_IN_WITH_X constant, as HTTP frameworks lower-case it). */
export const SIGN_IN_WITH_X_HEADER = 'sign-in-with-x';

export type WalletProof =
  | { ok: true; wallet: string; chainId: Network }
  | { ok: false; reason: WalletProofRejection; code: string; message: string };

export interface WalletProofDeps {
  uow: UnitOfWork;
  walletProofs: WalletProofVerifier;
}

export async function proveWallet(deps: WalletProofDeps, header: string): Promise<WalletProof> {
  const checked = await deps.walletProofs.check(header);
  if (!checked.ok) return checked;
  const first = await deps.uow.run((s) => s.proofNonces.use(checked.wallet, checked.nonce, checked.expiresAt));
  if (!first) {
    return { ok: false, reason: 'replayed', code: 'invalid_siwx_nonce', message: 'This proof was already used; sign a fresh challenge.' };
  }
  return { ok: true, wallet: checked.wallet, chainId: checked.chainId };
}

/** `details.siwx` of the plain answer to a request whose proof was not taken. */
export function siwxDetails(proof: Extract<WalletProof, { ok: false }>): { reason: WalletProofRejection; code: string; message: string } {
  return { reason: proof.reason, code: proof.code, message: proof.message };
}

/**
 * Forgets spent nonces whose proofs have expired, in bounded runs (for a periodic worker).
 * `graceMs` covers clock skew between this process and the verifier's.
 */
export function purgeSpentProofs(deps: Pick<WalletProofDeps, 'uow'> & { clock: { now(): Date } }, limit: number, graceMs = 60_000): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - graceMs);
  return deps.uow.run((s) => s.proofNonces.purgeExpired(before, limit));
}

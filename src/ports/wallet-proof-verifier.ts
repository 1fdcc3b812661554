import type { Network } from '../domain/network.js';

/**
 * Why a Sign-In-With-X proof (CAIP-122, x402's `sign-in-with-x` extension) is not taken. A proof
 * that is not taken is ignored: the request gets the plain flow, never an error of its own.
 */
export type WalletProofRejection =
  | 'malformed' // not a base64 JSON proof, fields missing, or a message that cannot be rebuilt
  | 'wrong_domain' // signed for another site (domain or URI origin)
  | 'wrong_chain' // a chain this service does not take payments on
  | 'expired' // issued too long ago, or past its expirationTime
  | 'expires_too_late' // an expirationTime beyond issuedAt + the max age: the proof would outlive its nonce's record
  | 'not_yet_valid' // issued in the future, or before its notBefore
  | 'bad_signature' // the signature is not the named wallet's
  | 'replayed'; // the proof was already used (judged by the caller, with a ProofNonceStore)

/** A proof whose signature, binding and times check out. Whether it was used before is not known here. */
export interface CheckedWalletProof {
  ok: true;
  /** The proven wallet, EIP-55 checksummed. */
  wallet: string;
  /** The CAIP-2 chain the proof names (one the service takes payments on). */
  chainId: Network;
  nonce: string;
  /**
   * When the proof stops being valid: its nonce must be remembered at least until then. Never
   * later than issuedAt + the verifier's max age (a proof claiming to last longer is refused as
   * `expires_too_late`), so a nonce record never has to outlive that.
   */
  expiresAt: Date;
}

export interface RejectedWalletProof {
  ok: false;
  reason: Exclude<WalletProofRejection, 'replayed'>;
  /** The extension's own failure code (e.g. `invalid_siwx_expired`), for logs and `details`. */
  code: string;
  message: string;
}

export interface WalletProofVerifier {
  /** Checks the value of a SIGN-IN-WITH-X header. Answers, never throws, whatever the input. */
  check(header: string): Promise<CheckedWalletProof | RejectedWalletProof>;
  /**
   * The `sign-in-with-x` entry of a 402's `extensions` for `resourceUrl`, offered on `networks`:
   * a fresh challenge (nonce, issuedAt, expiry) bound to the service's public origin.
   */
  challenge(resourceUrl: string, networks: readonly Network[]): Promise<Record<string, unknown>>;
}

/**
 * Sign-In-With-X (CAIP-122) with the official @x402/extensions/sign-in-with-x: the header is
 * parsed, its message validated (domain and URI bound to our public origin, issuedAt age,
 * expirationTime, notBefore) and its EIP-191 signature verified by the extension's own functions;
 * challenges are the extension's resource-server enrichment. What this adds: the chains we take,
 * the mapping of the extension's failure codes to our reasons, and when a proof's nonce may be
 * forgotten.
 */
import {
  createSIWxResourceServerExtension,
  declareSIWxExtension,
  InMemorySIWxStorage,
  parseSIWxHeader,
  SIGN_IN_WITH_X,
  validateSIWxMessage,
  verifySIWxSignature,
  type EVMMessageVerifier,
  type SIWxPayload,
} from '@x402/extensions/sign-in-with-x';
import type { ResourceServerExtension } from '@x402/core/types';
import { getAddress } from 'viem';
import { isNetwork, type Network } from '../../../domain/network.js';
import type { CheckedWalletProof, RejectedWalletProof, WalletProofVerifier } from '../../../ports/wallet-proof-verifier.js';

export interface SiwxWalletProofVerifierOptions {
  /**
   * The public origin proofs must be bound to (`https://api.example.com`): never the request's
   * Host. A function when it is known only once the server listens (an ephemeral port).
   */
  origin: string | (() => string);
  /** The chains a proof may name: the ones we take payments on. */
  networks: readonly Network[];
  /** Shown to the signer in the challenge. */
  statement?: string;
  /** Lifetime of a challenge we issue (its expirationTime). */
  challengeSeconds?: number;
  /**
   * How old a proof's issuedAt may be (the extension's default is 5 minutes); also the longest a
   * proof may claim to last (expirationTime − issuedAt), as its nonce is remembered that long.
   */
  maxAgeSeconds?: number;
  /** Smart-wallet signatures (EIP-1271/6492): a viem public client's verifyMessage. EOAs need none. */
  evmVerifier?: EVMMessageVerifier;
}

type Reason = RejectedWalletProof['reason'];

/** The extension's failure codes (validation and verification) as our reasons. */
const REASONS: Record<string, Reason> = {
  invalid_siwx_domain_mismatch: 'wrong_domain',
  invalid_siwx_uri_mismatch: 'wrong_domain',
  invalid_siwx_issued_at_too_old: 'expired',
  invalid_siwx_expired: 'expired',
  invalid_siwx_issued_at_in_future: 'not_yet_valid',
  invalid_siwx_not_yet_valid: 'not_yet_valid',
  invalid_siwx_chain_id: 'wrong_chain',
  invalid_siwx_unsupported_chain: 'wrong_chain',
  invalid_siwx_signature: 'bad_signature',
  invalid_siwx_verifier_error: 'bad_signature',
};

// EIP-4361's nonce: at least 8 letters or digits. Checked before the SIWE parser sees the message,
// which would otherwise print its parse trace to the console for every such request.
const SIWE_NONCE = /^[A-Za-z0-9]{8,}$/;

export class SiwxWalletProofVerifier implements WalletProofVerifier {
  private readonly maxAgeMs: number;
  private bound: { origin: URL; server: ResourceServerExtension } | undefined;

  constructor(private readonly options: SiwxWalletProofVerifierOptions) {
    this.maxAgeMs = (options.maxAgeSeconds ?? 300) * 1000;
    if (typeof options.origin === 'string') this.bind();
  }

  private get origin(): URL {
    return this.bind().origin;
  }

  private bind(): { origin: URL; server: ResourceServerExtension } {
    if (!this.bound) {
      const origin = new URL(typeof this.options.origin === 'string' ? this.options.origin : this.options.origin());
      // Only its challenge enrichment is used; payments and nonces are ours, not this storage's.
      this.bound = { origin, server: createSIWxResourceServerExtension({ storage: new InMemorySIWxStorage(), origin: origin.origin }) };
    }
    return this.bound;
  }

  async check(header: string): Promise<CheckedWalletProof | RejectedWalletProof> {
    try {
      return await this.checkParsed(parseSIWxHeader(header));
    } catch (e) {
      return reject('malformed', 'invalid_siwx_header', e instanceof Error ? e.message : 'The proof could not be read.');
    }
  }

  private async checkParsed(proof: SIWxPayload): Promise<CheckedWalletProof | RejectedWalletProof> {
    if (!SIWE_NONCE.test(proof.nonce)) return reject('malformed', 'invalid_siwx_nonce', 'The nonce must be at least 8 letters or digits.');
    const valid = await validateSIWxMessage(proof, this.origin, { maxAge: this.maxAgeMs });
    if (!valid.isValid) return reject(REASONS[valid.invalidReason] ?? 'malformed', valid.invalidReason, valid.invalidMessage);
    const tooLate = expiresTooLate(proof.issuedAt, proof.expirationTime, this.maxAgeMs);
    if (tooLate) return tooLate;
    const chainId = proof.chainId;
    if (!isNetwork(chainId) || !this.options.networks.includes(chainId)) {
      return reject('wrong_chain', 'invalid_siwx_unsupported_chain', `Proofs must name one of ${this.options.networks.join(', ')}; got ${chainId}.`);
    }
    const verified = await verifySIWxSignature(proof, this.options.evmVerifier ? { evmVerifier: this.options.evmVerifier } : undefined);
    if (!verified.isValid) return reject(REASONS[verified.invalidReason] ?? 'malformed', verified.invalidReason, verified.invalidMessage);
    // Valid until the first of: issuedAt + max age, its own expirationTime.
    const ends = [new Date(proof.issuedAt).getTime() + this.maxAgeMs];
    if (proof.expirationTime) ends.push(new Date(proof.expirationTime).getTime());
    return { ok: true, wallet: getAddress(verified.payer), chainId, nonce: proof.nonce, expiresAt: new Date(Math.min(...ends)) };
  }

  async challenge(resourceUrl: string, networks: readonly Network[]): Promise<Record<string, unknown>> {
    const declaration = declareSIWxExtension({
      network: [...networks],
      statement: this.options.statement ?? 'Sign in with your wallet to the x402 token launchpad.',
      // Never longer than a proof may last: a challenge we issue must make a proof we take.
      expirationSeconds: Math.min(this.options.challengeSeconds ?? 300, this.maxAgeMs / 1000),
    })[SIGN_IN_WITH_X];
    const context = { requirements: [], resourceInfo: { url: resourceUrl }, paymentRequiredResponse: { x402Version: 2, resource: { url: resourceUrl }, accepts: [] } };
    return (await this.bind().server.enrichPaymentRequiredResponse!(declaration, context as never)) as Record<string, unknown>;
  }
}

/**
 * A proof may not claim to last longer than its nonce is remembered (issuedAt + max age): one
 * that does is refused rather than taken for less than it says. One second of slack covers
 * challenges whose issuedAt and expirationTime were read from two clock calls.
 */
function expiresTooLate(issuedAt: string, expirationTime: string | undefined, maxAgeMs: number): RejectedWalletProof | null {
  if (expirationTime === undefined) return null;
  const lifetime = Date.parse(expirationTime) - Date.parse(issuedAt);
  if (!(lifetime > maxAgeMs + 1_000)) return null;
  return reject(
    'expires_too_late',
    'invalid_siwx_expiration_too_far',
    `The proof's expirationTime is ${Math.floor(lifetime / 1000)} s after its issuedAt; a proof may last at most ${maxAgeMs / 1000} s (its nonce is remembered that long). Sign a proof that expires sooner.`,
  );
}

function reject(reason: Reason, code: string, message: string): RejectedWalletProof {
  return { ok: false, reason, code, message };
}

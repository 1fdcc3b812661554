/**
 * A WalletProofVerifier without cryptography, for tests of the flow: a proof is base64 JSON in
 * the SIGN-IN-WITH-X shape whose `signature` is `fake:<wallet lower-case>:<nonce>`. Binding and
 * times are checked as the real one checks them, against the injected clock.
 */
import { getAddress, isAddress } from 'viem';
import { isNetwork, type Network } from '../../../domain/network.js';
import type { Clock } from '../../../ports/clock.js';
import type { CheckedWalletProof, RejectedWalletProof, WalletProofVerifier } from '../../../ports/wallet-proof-verifier.js';

export interface FakeProof {
  domain: string;
  address: string;
  uri: string;
  chainId: string;
  nonce: string;
  issuedAt: string;
  expirationTime?: string;
  notBefore?: string;
  signature: string;
}

export class FakeWalletProofVerifier implements WalletProofVerifier {
  private readonly origin: URL;
  private issued = 0;

  constructor(
    private readonly options: { origin: string; networks: readonly Network[]; clock: Clock; maxAgeSeconds?: number },
  ) {
    this.origin = new URL(options.origin);
  }

  /** The signature the fake accepts for `wallet` and `nonce`. */
  static sign(wallet: string, nonce: string): string {
    return `fake:${wallet.toLowerCase()}:${nonce}`;
  }

  /** A header carrying `proof`, as a client would send it. */
  static encode(proof: FakeProof): string {
    return Buffer.from(JSON.stringify(proof), 'utf8').toString('base64');
  }

  async check(header: string): Promise<CheckedWalletProof | RejectedWalletProof> {
    let p: Partial<FakeProof>;
    try {
      p = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) as Partial<FakeProof>;
    } catch {
      return reject('malformed', 'invalid_siwx_header', 'not base64 JSON');
    }
    const fields = ['domain', 'address', 'uri', 'chainId', 'nonce', 'issuedAt', 'signature'] as const;
    if (!p || typeof p !== 'object' || fields.some((f) => typeof p[f] !== 'string') || !isAddress(p.address!)) {
      return reject('malformed', 'invalid_siwx_header', 'fields missing');
    }
    const proof = p as FakeProof;
    if (!/^[A-Za-z0-9]{8,}$/.test(proof.nonce)) return reject('malformed', 'invalid_siwx_nonce', 'bad nonce');
    let uriOrigin: string;
    try {
      uriOrigin = new URL(proof.uri).origin;
    } catch {
      uriOrigin = '';
    }
    if (proof.domain !== this.origin.host || uriOrigin !== this.origin.origin) return reject('wrong_domain', 'invalid_siwx_domain_mismatch', 'another site');
    const now = this.options.clock.now().getTime();
    const issuedAt = Date.parse(proof.issuedAt);
    const expiration = proof.expirationTime === undefined ? Infinity : Date.parse(proof.expirationTime);
    const notBefore = proof.notBefore === undefined ? -Infinity : Date.parse(proof.notBefore);
    if ([issuedAt, expiration, notBefore].some(Number.isNaN)) return reject('malformed', 'invalid_siwx_issued_at', 'bad time');
    const maxAgeMs = (this.options.maxAgeSeconds ?? 300) * 1000;
    if (now - issuedAt > maxAgeMs || expiration < now) return reject('expired', 'invalid_siwx_expired', 'expired');
    if (issuedAt > now || notBefore > now) return reject('not_yet_valid', 'invalid_siwx_not_yet_valid', 'not yet valid');
    // As the real one: no proof may claim to last longer than its nonce is remembered (1 s of slack).
    if (proof.expirationTime !== undefined && expiration - issuedAt > maxAgeMs + 1_000) return reject('expires_too_late', 'invalid_siwx_expiration_too_far', 'expires too late');
    if (!isNetwork(proof.chainId) || !this.options.networks.includes(proof.chainId)) {
      return reject('wrong_chain', 'invalid_siwx_unsupported_chain', 'unsupported chain');
    }
    if (proof.signature !== FakeWalletProofVerifier.sign(proof.address, proof.nonce)) return reject('bad_signature', 'invalid_siwx_signature', 'bad signature');
    return {
      ok: true,
      wallet: getAddress(proof.address),
      chainId: proof.chainId,
      nonce: proof.nonce,
      expiresAt: new Date(Math.min(issuedAt + maxAgeMs, expiration)),
    };
  }

  async challenge(resourceUrl: string, networks: readonly Network[]): Promise<Record<string, unknown>> {
    const url = new URL(resourceUrl);
    const uri = `${this.origin.origin}${url.pathname}${url.search}`;
    const now = this.options.clock.now();
    this.issued += 1;
    return {
      info: {
        domain: this.origin.host,
        uri,
        version: '1',
        nonce: `fakenonce${this.issued.toString().padStart(8, '0')}`,
        issuedAt: now.toISOString(),
        expirationTime: new Date(now.getTime() + 300_000).toISOString(),
        resources: [uri],
      },
      supportedChains: networks.map((chainId) => ({ chainId, type: 'eip191' })),
      schema: { type: 'object' },
    };
  }
}

function reject(reason: RejectedWalletProof['reason'], code: string, message: string): RejectedWalletProof {
  return { ok: false, reason, code, message };
}

/**
 * What every WalletProofVerifier answers for Sign-In-With-X proofs: the proven wallet for a good
 * one; for a bad one the reason, never an exception.
 */
import type { PrivateKeyAccount } from 'viem/accounts';
import { describe, expect, it } from 'vitest';
import { PRODUCTION, TESTNET, type Network } from '../../src/domain/network.js';
import type { WalletProofVerifier } from '../../src/ports/wallet-proof-verifier.js';
import { devAccount } from '../support/x402-client.js';

export interface ProofSpec {
  /** The wallet the proof names. */
  account: PrivateKeyAccount;
  /** Who really signs (default: `account`). */
  signer?: PrivateKeyAccount;
  chainId?: string;
  domain?: string;
  uri?: string;
  nonce?: string;
  issuedAt?: Date;
  expirationTime?: Date;
  notBefore?: Date;
}

export interface WalletProofHarness {
  verifier: WalletProofVerifier;
  /** The public origin the verifier binds proofs to. */
  origin: string;
  now(): Date;
  /** A SIGN-IN-WITH-X header for `spec`, signed as this adapter's proofs are. */
  prove(spec: ProofSpec): Promise<string>;
  /** The header a client sends answering a 402's `sign-in-with-x` challenge, or undefined if it would not. */
  answer(challenge: Record<string, unknown>, account: PrivateKeyAccount, requestUrl: string): Promise<string | undefined>;
}

const alice = devAccount(5);
const mallory = devAccount(6);
const b64 = (s: string) => Buffer.from(s, 'utf8').toString('base64');

export function walletProofVerifierContract(name: string, make: () => Promise<WalletProofHarness>) {
  describe(`WalletProofVerifier contract: ${name}`, () => {
    it('a fresh proof names its wallet, chain and nonce, valid until issuedAt + 5 min or its expiry', async () => {
      const h = await make();
      const issuedAt = new Date(h.now().getTime() - 1_000);
      for (const chainId of [PRODUCTION, TESTNET] as Network[]) {
        const checked = await h.verifier.check(await h.prove({ account: alice, chainId, issuedAt, nonce: `abc${chainId.length}defgh123` }));
        expect(checked).toEqual({ ok: true, wallet: alice.address, chainId, nonce: `abc${chainId.length}defgh123`, expiresAt: new Date(issuedAt.getTime() + 300_000) });
      }
      const expirationTime = new Date(issuedAt.getTime() + 60_000);
      const short = await h.verifier.check(await h.prove({ account: alice, issuedAt, expirationTime }));
      expect(short).toMatchObject({ ok: true, expiresAt: expirationTime });
    });

    it('another site’s proof is wrong_domain; a chain we do not take is wrong_chain', async () => {
      const h = await make();
      const origin = new URL(h.origin);
      const cases: [Partial<ProofSpec>, string][] = [
        [{ domain: 'evil.example', uri: 'https://evil.example/entrypoints/token_info' }, 'wrong_domain'],
        [{ uri: 'https://evil.example/entrypoints/token_info' }, 'wrong_domain'],
        [{ domain: `${origin.hostname}:1` }, 'wrong_domain'],
        [{ chainId: 'eip155:1' }, 'wrong_chain'],
        [{ chainId: 'eip155:11155111' }, 'wrong_chain'],
      ];
      for (const [spec, reason] of cases) {
        expect(await h.verifier.check(await h.prove({ account: alice, ...spec })), JSON.stringify(spec)).toMatchObject({ ok: false, reason });
      }
    });

    it('an old, expired or not-yet-valid proof is refused for its times', async () => {
      const h = await make();
      const t = (ms: number) => new Date(h.now().getTime() + ms);
      const cases: [Partial<ProofSpec>, string][] = [
        [{ issuedAt: t(-10 * 60_000) }, 'expired'],
        [{ issuedAt: t(-120_000), expirationTime: t(-1_000) }, 'expired'],
        [{ issuedAt: t(60_000) }, 'not_yet_valid'],
        [{ notBefore: t(60_000) }, 'not_yet_valid'],
      ];
      for (const [spec, reason] of cases) {
        expect(await h.verifier.check(await h.prove({ account: alice, ...spec })), reason).toMatchObject({ ok: false, reason });
      }
    });

    it('a proof may not claim to last longer than its nonce is remembered (issuedAt + 5 min): expires_too_late', async () => {
      const h = await make();
      const issuedAt = new Date(h.now().getTime() - 1_000);
      const after = (ms: number) => new Date(issuedAt.getTime() + ms);
      for (const expirationTime of [new Date('2999-01-01T00:00:00.000Z'), after(302_000)]) {
        const checked = await h.verifier.check(await h.prove({ account: alice, issuedAt, expirationTime }));
        expect(checked, expirationTime.toISOString()).toMatchObject({ ok: false, reason: 'expires_too_late', code: 'invalid_siwx_expiration_too_far', message: expect.any(String) });
      }
      // Up to 5 min (with a second of slack for a challenge read from two clock calls) is taken.
      const longest = await h.verifier.check(await h.prove({ account: alice, issuedAt, expirationTime: after(300_500) }));
      expect(longest).toMatchObject({ ok: true, expiresAt: new Date(issuedAt.getTime() + 300_000) });
    });

    it('a proof naming one wallet but signed by another is bad_signature', async () => {
      const h = await make();
      expect(await h.verifier.check(await h.prove({ account: alice, signer: mallory }))).toMatchObject({ ok: false, reason: 'bad_signature' });
    });

    it('anything unreadable is malformed, never an exception', async () => {
      const h = await make();
      const good = JSON.parse(Buffer.from(await h.prove({ account: alice }), 'base64').toString('utf8')) as Record<string, unknown>;
      const { signature: _s, ...unsigned } = good;
      const headers = [
        '',
        'not base64 at all!',
        b64('null'),
        b64('[1,2]'),
        b64('{}'),
        b64('{"domain":'),
        b64(JSON.stringify(unsigned)),
        b64(JSON.stringify({ ...good, nonce: 'short' })),
        b64(JSON.stringify({ ...good, issuedAt: 'yesterday' })),
        b64(JSON.stringify({ ...good, address: 'not-an-address' })),
        b64(JSON.stringify({ ...good, signature: '0x1234' })),
      ];
      for (const header of headers) {
        const checked = await h.verifier.check(header);
        expect(checked.ok, header).toBe(false);
        if (!checked.ok) expect(['malformed', 'bad_signature'], header).toContain(checked.reason);
      }
      expect(await h.verifier.check(headers[2]!)).toMatchObject({ ok: false, reason: 'malformed', code: expect.any(String), message: expect.any(String) });
    });

    it('issues challenges bound to the public origin, fresh each time, that a client answers with a valid proof', async () => {
      const h = await make();
      const internal = 'http://10.0.0.7:3000/entrypoints/token_info';
      const first = (await h.verifier.challenge(internal, [TESTNET])) as { info: Record<string, unknown>; supportedChains: unknown[] };
      const second = (await h.verifier.challenge(internal, [PRODUCTION, TESTNET])) as typeof first;
      const origin = new URL(h.origin);
      expect(first.info).toMatchObject({ domain: origin.host, uri: `${origin.origin}/entrypoints/token_info`, version: '1' });
      expect(first.supportedChains).toEqual([{ chainId: TESTNET, type: 'eip191' }]);
      expect(second.supportedChains).toEqual([
        { chainId: PRODUCTION, type: 'eip191' },
        { chainId: TESTNET, type: 'eip191' },
      ]);
      expect(second.info.nonce).not.toEqual(first.info.nonce);
      const header = await h.answer(first, alice, `${origin.origin}/entrypoints/token_info`);
      expect(header).toBeDefined();
      expect(await h.verifier.check(header!)).toMatchObject({ ok: true, wallet: alice.address, chainId: TESTNET, nonce: first.info.nonce });
    });
  });
}

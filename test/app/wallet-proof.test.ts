import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/adapters/clock/fake/fake-clock.js';
import { MemoryUnitOfWork } from '../../src/adapters/persistence/memory/memory-unit-of-work.js';
import { FakeWalletProofVerifier, type FakeProof } from '../../src/adapters/wallet-proof/fake/fake-wallet-proof-verifier.js';
import { SIGN_IN_WITH_X } from '@x402/extensions/sign-in-with-x';
import { proveWallet, purgeSpentProofs, SIGN_IN_WITH_X_HEADER, siwxDetails } from '../../src/app/payments/extensions/wallet-proof.js';
import { ALL_NETWORKS, TESTNET } from '../../src/domain/network.js';
import { WALLET_A, WALLET_B } from '../support/app-harness.js';

const ORIGIN = 'https://launchpad.example.com';

function setup() {
  const clock = new FakeClock('2026-11-23T12:00:00.000Z');
  const deps = { uow: new MemoryUnitOfWork(), clock, walletProofs: new FakeWalletProofVerifier({ origin: ORIGIN, networks: ALL_NETWORKS, clock }) };
  const proof = (wallet: string, nonce: string, over: Partial<FakeProof> = {}) =>
    FakeWalletProofVerifier.encode({
      domain: 'launchpad.example.com',
      uri: `${ORIGIN}/entrypoints/token_info`,
      address: wallet,
      chainId: TESTNET,
      nonce,
      issuedAt: clock.now().toISOString(),
      signature: FakeWalletProofVerifier.sign(wallet, nonce),
      ...over,
    });
  return { deps, clock, proof };
}

describe('proveWallet', () => {
  it('reads the header the package names', () => {
    expect(SIGN_IN_WITH_X_HEADER).toBe(SIGN_IN_WITH_X.toLowerCase());
  });

  it('a good proof proves its wallet once; the same proof again is replayed', async () => {
    const { deps, proof } = setup();
    const header = proof(WALLET_A, 'nonce0001');
    expect(await proveWallet(deps, header)).toEqual({ ok: true, wallet: WALLET_A, chainId: TESTNET });
    const again = await proveWallet(deps, header);
    expect(again).toMatchObject({ ok: false, reason: 'replayed' });
    if (!again.ok) expect(siwxDetails(again)).toEqual({ reason: 'replayed', code: 'invalid_siwx_nonce', message: expect.any(String) });
    // a fresh proof of the same wallet, or another wallet's proof with that nonce, is fine
    expect(await proveWallet(deps, proof(WALLET_A, 'nonce0002'))).toMatchObject({ ok: true });
    expect(await proveWallet(deps, proof(WALLET_B, 'nonce0001'))).toMatchObject({ ok: true, wallet: WALLET_B });
  });

  it('of concurrent requests carrying one proof, exactly one is taken', async () => {
    const { deps, proof } = setup();
    const header = proof(WALLET_A, 'nonce0003');
    const results = await Promise.all(Array.from({ length: 10 }, () => proveWallet(deps, header)));
    expect(results.filter((r) => r.ok)).toHaveLength(1);
    expect(results.filter((r) => !r.ok && r.reason === 'replayed')).toHaveLength(9);
  });

  it('a refused proof spends nothing: its nonce stays usable by a good proof', async () => {
    const { deps, proof } = setup();
    expect(await proveWallet(deps, proof(WALLET_A, 'nonce0004', { domain: 'evil.example' }))).toMatchObject({ ok: false, reason: 'wrong_domain' });
    expect(await proveWallet(deps, proof(WALLET_A, 'nonce0004', { signature: 'forged' }))).toMatchObject({ ok: false, reason: 'bad_signature' });
    expect(await proveWallet(deps, 'garbage')).toMatchObject({ ok: false, reason: 'malformed' });
    expect(await proveWallet(deps, proof(WALLET_A, 'nonce0004'))).toMatchObject({ ok: true });
  });

  it('spent nonces are purged once their proofs expired (with a grace for clock skew), not before', async () => {
    const { deps, clock, proof } = setup();
    const header = proof(WALLET_A, 'nonce0005');
    await proveWallet(deps, header);
    clock.advance(300_000 + 30_000);
    expect(await purgeSpentProofs(deps, 100)).toBe(0);
    clock.advance(60_000);
    expect(await purgeSpentProofs(deps, 100)).toBe(1);
    // by now the proof itself is expired: it is refused for that, not taken again
    expect(await proveWallet(deps, header)).toMatchObject({ ok: false, reason: 'expired' });
  });
});

/** Held USDC authorizations (src/app/held): the checks before payment, the exactly-once collect, a buy paid by collected USDC. */
import { describe, expect, it } from 'vitest';
import { DomainError, HeldAuthorizationInvalid } from '../../src/domain/errors.js';
import { PRODUCTION, TESTNET, type PaymentAsset } from '../../src/domain/network.js';
import type { TokenAuthorization } from '../../src/domain/token-authorization.js';
import { createToken } from '../../src/app/tokens/create-token.js';
import { validateTokenMetadata } from '../../src/domain/token.js';
import { buyWithCollected, planCollectedBuy, refundCollected } from '../../src/app/held/buy-with-collected.js';
import { collectHeld } from '../../src/app/held/collect.js';
import { checkHeldAuthorization, heldAuthorizationTypedData, stablecoin } from '../../src/app/held/usdc-authorization.js';
import { makeDeps, WALLET_A, WALLET_B } from '../support/app-harness.js';
import { signSell } from '../support/onchain.js';

type Deps = ReturnType<typeof makeDeps>;
const USDC = stablecoin(TESTNET, 'USDC');
const HOUR = 3_600_000;

function withStablecoins(deps: Deps): Deps {
  for (const network of [TESTNET, PRODUCTION] as const) {
    for (const asset of ['USDC', 'EURC'] as const) {
      const c = stablecoin(network, asset);
      deps.tokenIssuer.addStablecoin(network, c.address, c.name, c.version);
    }
  }
  deps.tokenIssuer.mint(TESTNET, USDC.address, WALLET_A, 100_000_000n);
  return deps;
}

async function signHeld(
  deps: Deps,
  o: { wallet?: string; amount?: bigint; network?: typeof TESTNET | typeof PRODUCTION; asset?: PaymentAsset; over?: Partial<Omit<TokenAuthorization, 'signature'>> } = {},
) {
  const network = o.network ?? TESTNET;
  const token = { network, ...stablecoin(network, o.asset ?? 'USDC') };
  return signSell({
    wallet: o.wallet ?? WALLET_A,
    token,
    custody: deps.tokenIssuer.custody(network),
    tokens: o.amount ?? 5_000_000n,
    now: deps.clock.now(),
    over: { validBefore: BigInt(Math.floor(deps.clock.now().getTime() / 1000) + 7200), ...o.over },
  });
}

const check = (deps: Deps, authorization: TokenAuthorization, over: Partial<{ wallet: string; amount: bigint; validUntil: Date }> = {}) =>
  checkHeldAuthorization(deps, {
    network: TESTNET,
    asset: 'USDC',
    wallet: WALLET_A,
    amount: 5_000_000n,
    authorization,
    validUntil: new Date(deps.clock.now().getTime() + HOUR),
    ...over,
  });

async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof DomainError) return `${e.code}${e.details?.['reason'] ? `:${String(e.details['reason'])}` : ''}`;
    throw e;
  }
  return 'OK';
}

describe('checkHeldAuthorization', () => {
  it('accepts an authorization the typed data describes, signed by the wallet', async () => {
    const deps = withStablecoins(makeDeps());
    const { typedData, authorization } = heldAuthorizationTypedData(deps, { network: TESTNET, asset: 'USDC', wallet: WALLET_A, amount: 5_000_000n, validUntil: new Date(deps.clock.now().getTime() + HOUR) });
    expect(typedData.domain).toMatchObject({ name: 'USDC', version: '2', chainId: 84532, verifyingContract: USDC.address });
    expect(authorization).toMatchObject({ from: WALLET_A, to: deps.tokenIssuer.custody(TESTNET), value: '5000000', validAfter: '0' });
    const a = await signHeld(deps, { over: { validAfter: 0n, validBefore: BigInt(authorization.validBefore), nonce: authorization.nonce } });
    expect(await refusal(check(deps, a))).toBe('OK');
  });

  it.each([
    ['signature', async (d: Deps) => ({ ...(await signHeld(d)), signature: `0x${'11'.repeat(65)}` })],
    ['wallet', (d: Deps) => signHeld(d, { wallet: WALLET_B })],
    ['value', (d: Deps) => signHeld(d, { amount: 4_000_000n })],
    ['network', (d: Deps) => signHeld(d, { network: PRODUCTION })],
    ['asset', (d: Deps) => signHeld(d, { asset: 'EURC' })],
    ['to', (d: Deps) => signHeld(d, { over: { to: WALLET_B } })],
    ['valid_before', (d: Deps) => signHeld(d, { over: { validBefore: BigInt(Math.floor(d.clock.now().getTime() / 1000) + 600) } })],
    ['expired', (d: Deps) => signHeld(d, { over: { validBefore: BigInt(Math.floor(d.clock.now().getTime() / 1000) - 1) } })],
    ['not_yet_valid', (d: Deps) => signHeld(d, { over: { validAfter: BigInt(Math.floor(d.clock.now().getTime() / 1000) + 60) } })],
  ] as const)('refuses reason %s', async (reason, make) => {
    const deps = withStablecoins(makeDeps());
    expect(await refusal(check(deps, await make(deps)))).toBe(`HELD_AUTHORIZATION_INVALID:${reason}`);
  });

  it('refuses a nonce used on chain, and a balance below the amount', async () => {
    const deps = withStablecoins(makeDeps());
    const a = await signHeld(deps);
    await collectHeld(deps, 'k1', TESTNET, USDC.address, a);
    expect(await refusal(check(deps, a))).toBe('HELD_AUTHORIZATION_INVALID:used');
    const b = await signHeld(deps, { amount: 200_000_000n });
    expect(await refusal(check(deps, b, { amount: 200_000_000n }))).toBe('INSUFFICIENT_BALANCE');
  });
});

describe('collectHeld', () => {
  it('moves exactly the amount to custody, once per key however often it is called', async () => {
    const deps = withStablecoins(makeDeps());
    const a = await signHeld(deps);
    const first = await collectHeld(deps, 'order:1', TESTNET, USDC.address, a);
    const again = await collectHeld(deps, 'order:1', TESTNET, USDC.address, a);
    expect(again.txHash).toBe(first.txHash);
    expect(await deps.tokenIssuer.balanceOf(TESTNET, USDC.address, WALLET_A)).toBe(95_000_000n);
    expect(await deps.tokenIssuer.balanceOf(TESTNET, USDC.address, deps.tokenIssuer.custody(TESTNET))).toBe(5_000_000n);
  });

  it('a wallet that spent its money: unusable (balance), nothing signed', async () => {
    const deps = withStablecoins(makeDeps());
    const a = await signHeld(deps);
    deps.tokenIssuer.holderTransfer(TESTNET, USDC.address, WALLET_A, WALLET_B, 99_000_000n);
    const before = deps.tokenIssuer.broadcasts;
    expect(await refusal(collectHeld(deps, 'order:2', TESTNET, USDC.address, a))).toBe('HELD_AUTHORIZATION_INVALID:unusable');
    expect(deps.tokenIssuer.broadcasts).toBe(before);
    // A later copy (the money back in the wallet meanwhile) answers the recorded refusal, why and words included (decision 0063).
    deps.tokenIssuer.holderTransfer(TESTNET, USDC.address, WALLET_B, WALLET_A, 99_000_000n);
    const again = await collectHeld(deps, 'order:2', TESTNET, USDC.address, a).then(
      () => null,
      (e: unknown) => e,
    );
    expect(again).toBeInstanceOf(HeldAuthorizationInvalid);
    expect(again).toMatchObject({ details: { reason: 'unusable', why: 'balance' }, message: expect.stringMatching(/^The held authorization can no longer be used: the wallet holds .+, less than .+; nothing was taken\.$/) });
    expect(deps.tokenIssuer.broadcasts).toBe(before);
  });

  it('a receive that reverts on chain: unusable, nothing moved', async () => {
    const deps = withStablecoins(makeDeps());
    const a = await signHeld(deps);
    deps.tokenIssuer.scriptNext('reverted');
    expect(await refusal(collectHeld(deps, 'order:3', TESTNET, USDC.address, a))).toBe('HELD_AUTHORIZATION_INVALID:unusable');
    expect(await deps.tokenIssuer.balanceOf(TESTNET, USDC.address, WALLET_A)).toBe(100_000_000n);
  });
  it('a collect another process recorded and mined while this one read the chain is followed, not refused as used', async () => {
    const deps = withStablecoins(makeDeps());
    const a = await signHeld(deps);
    const issuer = deps.tokenIssuer;
    // This process read "no record"; the other records, broadcasts and mines the collect before this one's checks read the nonce.
    const late = Object.create(issuer) as typeof issuer;
    late.authorizationState = async (...args) => {
      await collectHeld(deps, 'order:4', TESTNET, USDC.address, a);
      return issuer.authorizationState(...args);
    };
    const followed = await collectHeld({ ...deps, tokenIssuer: late }, 'order:4', TESTNET, USDC.address, a);
    expect(followed.txHash).toBe((await collectHeld(deps, 'order:4', TESTNET, USDC.address, a)).txHash);
    expect(await deps.tokenIssuer.balanceOf(TESTNET, USDC.address, WALLET_A)).toBe(95_000_000n);
  });
});

describe('buyWithCollected', () => {
  async function launch(deps: Deps) {
    return createToken(deps, { metadata: validateTokenMetadata({ name: 'Held coin', symbol: 'HELD' }), creator: WALLET_B, network: TESTNET });
  }

  it('books a buy like any other (fee and fee shares), without a payment, and runs onBooked in its transaction', async () => {
    const deps = withStablecoins(makeDeps());
    const { tokenId } = await launch(deps);
    let seen = '';
    const r = await buyWithCollected(deps, {
      key: 'order:4',
      tokenId,
      network: TESTNET,
      buyer: WALLET_A,
      usdAmount: 5_000_000n,
      onBooked: async (_stores, result) => {
        seen = result.trade.tradeId;
      },
    });
    expect(seen).toBe(r.trade.tradeId);
    expect(r.payment).toBeNull();
    expect(r.trade.paymentId).toBeNull();
    expect(r.usdSpent).toBe('5');
    expect(Number(r.feeUsd)).toBeGreaterThan(0);
    const position = await deps.uow.run((s) => s.positions.get(TESTNET, WALLET_A, tokenId));
    expect(position?.balance).toBeGreaterThan(0n);
  });

  it('a failing onBooked rolls the trade back', async () => {
    const deps = withStablecoins(makeDeps());
    const { tokenId } = await launch(deps);
    const failing = buyWithCollected(deps, {
      key: 'order:5',
      tokenId,
      network: TESTNET,
      buyer: WALLET_A,
      usdAmount: 5_000_000n,
      onBooked: () => Promise.reject(new Error('lost the race')),
    });
    await expect(failing).rejects.toThrow('lost the race');
    expect(await deps.uow.run((s) => s.positions.get(TESTNET, WALLET_A, tokenId))).toBeNull();
  });

  it('planCollectedBuy refuses a missed bound before anything is collected; refundCollected queues the amount back once', async () => {
    const deps = withStablecoins(makeDeps());
    const { tokenId } = await launch(deps);
    expect(await refusal(planCollectedBuy(deps, { tokenId, network: TESTNET, usdAmount: 1_000_000n, minTokensOut: 10n ** 30n }))).toBe('SLIPPAGE_EXCEEDED');
    const refund = { network: TESTNET as typeof TESTNET, wallet: WALLET_A, asset: 'USDC' as const, amount: 1_000_000n, sourceId: 'order:6' };
    const a = await deps.uow.transaction((s) => refundCollected(deps, s, refund));
    const b = await deps.uow.transaction((s) => refundCollected(deps, s, refund));
    expect(b.payoutId).toBe(a.payoutId);
    expect(a).toMatchObject({ reason: 'refund', amount: 1_000_000n, asset: 'USDC' });
  });
});

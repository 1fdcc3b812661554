/**
 * Tokens on chain (#12, docs/api.md "Tokens on chain"), end to end on the embedded devnet with the official
 * @x402/fetch client, on SQLite and on PostgreSQL: the launched contract is the token the API
 * describes; buys land in the buyer's wallet to the unit; a sell pulls exactly the tokens sold
 * and pays exactly the proceeds; every bad token authorization is refused before any payment;
 * and a crash or an RPC outage between any two steps (deploy, deliver, pull, payout) is finished
 * exactly once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, erc20Abi, http, HttpRequestError, type Hex } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MikroOrmUnitOfWork } from '../../src/adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import { LAUNCH_TOKEN_ABI } from '../../src/adapters/kit/evm/contracts/launch-contracts.js';
import { startService, type RunningService } from '../../src/bootstrap/compose.js';
import { formatTokens, parseTokens, parseUsd } from '../../src/domain/money.js';
import { NETWORKS, TESTNET } from '../../src/domain/network.js';
import type { TokenAuthorization } from '../../src/domain/token-authorization.js';
import type { TokenIssuer } from '../../src/ports/token-issuer.js';
import type { UnitOfWork } from '../../src/ports/unit-of-work.js';
import { devnetTools } from '../support/devnet.js';
import { signedSellBody, signSell } from '../support/onchain.js';
import { queryDatabase } from '../support/service-process.js';
import { backfillTokens } from '../../src/app/workers/token-backfill.js';
import { dropSchema, POSTGRES_URL } from '../support/postgres.js';
import { withoutServices } from '../support/services.js';
import { devnetConfig, json, ShiftableClock } from '../support/service.js';
import { devAccount, payingFetch } from '../support/x402-client.js';

const CUSTODY = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'; // the devnet treasury holds every supply
const SUPPLY = 1_000_000_000n * 10n ** 18n;

const databases: [string, () => Promise<{ uow: UnitOfWork; url: string; cleanup: () => Promise<void> }>][] = [
  [
    'SQLite',
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'launchpad-onchain-'));
      const url = `sqlite:${join(dir, 'service.db')}`;
      const uow = await MikroOrmUnitOfWork.open({ url });
      return { uow, url, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  ],
  [
    'PostgreSQL',
    async () => {
      const schema = `onchain_${randomBytes(5).toString('hex')}`;
      const url = `${POSTGRES_URL}?schema=${schema}`;
      const uow = await MikroOrmUnitOfWork.open({ url });
      return { uow, url, cleanup: () => dropSchema(schema) };
    },
  ],
];

/** Faults the tests switch on: a crash right after a step, an RPC that stops answering. */
interface Faults {
  crashAfterDeploymentRecord: boolean;
  crashAfterDeliveryRecord: boolean;
  crashAfterPullMined: boolean;
  rpcDown: boolean;
  rpcDownAfterNextBroadcast: boolean;
  afterSettle: (() => Promise<void>) | null;
}

/** The service's own token issuer, with an RPC that can go down and a crash after a pull is mined. */
function faulty(issuer: TokenIssuer, faults: Faults): TokenIssuer {
  const down = () => new HttpRequestError({ url: 'http://devnet', details: 'connect ECONNREFUSED (the test took the RPC down)' });
  return new Proxy(issuer, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      const chainCall = ['broadcast', 'status', 'prepareTransfer', 'prepareDeploy', 'isDeployed', 'blockOf', 'unblock'].includes(String(prop));
      if (typeof value !== 'function' || !chainCall) return typeof value === 'function' ? value.bind(target) : value;
      return async (...args: unknown[]) => {
        if (faults.rpcDown) throw down();
        const result = await (value as (...a: unknown[]) => unknown).apply(target, args);
        if (prop === 'broadcast' && faults.rpcDownAfterNextBroadcast) {
          faults.rpcDownAfterNextBroadcast = false;
          faults.rpcDown = true; // the transaction is out; the node stops answering before its receipt
        }
        if (prop === 'status' && result === 'confirmed' && faults.crashAfterPullMined) {
          faults.crashAfterPullMined = false;
          throw new Error('simulated crash right after the pull was mined, before the trade was written');
        }
        return result;
      };
    },
  });
}

describe.each(withoutServices(databases))('tokens on chain, on %s', (_name, openStore) => {
  const clock = new ShiftableClock();
  const faults: Faults = { crashAfterDeploymentRecord: false, crashAfterDeliveryRecord: false, crashAfterPullMined: false, rpcDown: false, rpcDownAfterNextBroadcast: false, afterSettle: null };
  let service: RunningService;
  let uow: UnitOfWork;
  let cleanup: () => Promise<void>;
  let url: string;
  const dataDir = mkdtempSync(join(tmpdir(), 'launchpad-onchain-devnet-'));

  beforeAll(async () => {
    ({ uow, url, cleanup } = await openStore());
    const config = await devnetConfig(dataDir, {
      DEVNET_IDLE_BLOCK_SECONDS: '0',
    });
    const once = (flag: 'crashAfterDeploymentRecord' | 'crashAfterDeliveryRecord', what: string) => async () => {
      if (!faults[flag]) return;
      faults[flag] = false;
      throw new Error(`simulated crash after recording a ${what}, before broadcasting it`);
    };
    service = await startService(config, {
      ports: { clock, uow },
      hooks: {
        deployments: { afterRecord: once('crashAfterDeploymentRecord', 'deployment') },
        deliveries: { afterRecord: once('crashAfterDeliveryRecord', 'delivery') },
        afterSettle: async () => {
          const f = faults.afterSettle;
          faults.afterSettle = null;
          await f?.();
        },
      },
      wrapTokenIssuer: (issuer) => faulty(issuer, faults),
    });
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
    await cleanup?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const rpcUrl = () => service.devnet!.chains[TESTNET].rpcUrl;
  const chain = () => createPublicClient({ transport: http(rpcUrl()) });
  const usdc = (wallet: string) => devnetTools(service.devnet!).usdcBalance(TESTNET, wallet as Hex);
  const tokenBalance = (token: string, wallet: string) =>
    chain().readContract({ address: token as Hex, abi: erc20Abi, functionName: 'balanceOf', args: [wallet as Hex] });

  /** Worker passes with the clock moved past each wait (poll interval, backoff, reconciler grace). */
  async function drain(passes = 4, stepMs = 31_000) {
    for (let i = 0; i < passes; i++) {
      clock.offsetMs += stepMs;
      await service.runWorkers();
    }
  }

  /** The PAYMENT-SIGNATURE headers a wallet sent, so a test can find its payment by nonce. */
  const sent: string[] = [];
  const recording: typeof fetch = async (input, init) => {
    const header = (input instanceof Request ? input.headers : new Headers(init?.headers)).get('payment-signature');
    if (header) sent.push(header);
    return fetch(input, init);
  };
  const lastPaymentNonce = () => {
    const payload = JSON.parse(Buffer.from(sent.at(-1)!, 'base64').toString('utf8')) as { payload: { authorization: { nonce: string; from: string } } };
    return payload.payload.authorization;
  };

  const call = (path: string, body: unknown, account: PrivateKeyAccount) =>
    payingFetch(account, recording)(`${service.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-wallet-address': account.address },
      body: JSON.stringify(body),
    });

  async function launch(account: PrivateKeyAccount, symbol: string) {
    const created = (await json(await call('/tokens', { name: `Chain ${symbol}`, symbol }, account))).data;
    return created as { tokenId: string; address: string; name: string; deployment: { state: string } };
  }

  async function buy(account: PrivateKeyAccount, tokenId: string, usdAmount: string) {
    return (await json(await call('/entrypoints/token_buy_usd', { tokenId, usdAmount }, account))).data as {
      tokensReceived: string;
      delivery: { deliveryId: string; state: string };
    };
  }

  it('a created token is the ERC-20 the API describes; every buy lands in the wallet to the unit; custody holds the rest', async () => {
    const a = devAccount(5);
    const b = devAccount(6);
    const token = await launch(a, 'CHN');
    expect(token.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(token.deployment.state).toBe('PENDING');
    const buys = [await buy(a, token.tokenId, '3'), await buy(b, token.tokenId, '2.5'), await buy(a, token.tokenId, '1')];
    expect(buys.every((x) => x.delivery.state === 'PENDING')).toBe(true);
    await drain();

    const deployed = (await json(await fetch(`${service.url}/tokens/${token.tokenId}`))).data;
    expect(deployed.deployment.state).toBe('DEPLOYED');
    expect(deployed.address).toBe(token.address);
    const read = (functionName: 'name' | 'symbol' | 'totalSupply' | 'decimals') =>
      chain().readContract({ address: token.address as Hex, abi: erc20Abi, functionName });
    expect(await read('name')).toBe('Chain CHN');
    expect(await read('symbol')).toBe('CHN');
    expect(await read('decimals')).toBe(18);
    expect(await read('totalSupply')).toBe(SUPPLY);

    const received = (w: PrivateKeyAccount, ...ofs: number[]) => ofs.reduce((s, i) => s + parseTokens(buys[i]!.tokensReceived), 0n);
    expect(await tokenBalance(token.address, a.address)).toBe(received(a, 0, 2));
    expect(await tokenBalance(token.address, b.address)).toBe(received(b, 1));
    expect(await tokenBalance(token.address, CUSTODY)).toBe(SUPPLY - received(a, 0, 1, 2));
    for (const x of buys) {
      const d = (await json(await fetch(`${service.url}/api/deliveries/${x.delivery.deliveryId}`))).data;
      expect(d).toMatchObject({ state: 'CONFIRMED', amount: x.tokensReceived });
    }
    // /positions shows the ledger and the chain side by side.
    const positions = (await json(await fetch(`${service.url}/positions?wallet=${a.address}&network=${TESTNET}`))).data;
    const p = positions.items.find((i: { tokenId: string }) => i.tokenId === token.tokenId);
    expect(p.onChainBalance).toBe(p.balance);
  });

  it('a sell pulls exactly the tokens sold on chain and pays exactly the proceeds', async () => {
    const w = devAccount(7);
    const token = await launch(w, 'SEL');
    await buy(w, token.tokenId, '4');
    await drain();
    const tokensBefore = await tokenBalance(token.address, w.address);
    const custodyBefore = await tokenBalance(token.address, CUSTODY);
    const usdcBefore = await usdc(w.address);
    const sell = (await json(await call('/entrypoints/token_sell', await signedSellBody(service.url, w, token.tokenId, '123456.789'), w))).data;
    expect(sell.pullTx).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await tokenBalance(token.address, w.address)).toBe(tokensBefore - parseTokens('123456.789'));
    expect(await tokenBalance(token.address, CUSTODY)).toBe(custodyBefore + parseTokens('123456.789'));
    await drain();
    expect(await usdc(w.address)).toBe(usdcBefore - parseUsd('0.01') + parseUsd(sell.usdReceived));
    const payout = (await json(await fetch(`${service.url}/api/payouts/${sell.payout.payoutId}`))).data;
    expect(payout.state).toBe('CONFIRMED');
  });

  describe('a bad token authorization is refused before any payment, and nothing is charged', () => {
    const w = devAccount(8);
    let token: { tokenId: string; address: string; name: string };
    let usedNonce: string;

    beforeAll(async () => {
      token = await launch(w, 'BAD');
      await buy(w, token.tokenId, '2');
      await drain();
      const body = await signedSellBody(service.url, w, token.tokenId, '1000');
      await call('/entrypoints/token_sell', body, w);
      usedNonce = body.tokenAuthorization.nonce!;
    });

    const sign = (over: Partial<Omit<TokenAuthorization, 'signature'>> = {}, extra: Partial<Parameters<typeof signSell>[0]> = {}) =>
      signSell({ wallet: w.address, token: { network: TESTNET, ...token }, custody: CUSTODY, tokens: parseTokens('1000'), now: clock.now(), over, ...extra });

    async function refused(authorization: TokenAuthorization, payer = w, tokens = '1000') {
      const before = await usdc(payer.address);
      const body = {
        tokenId: token.tokenId,
        tokens,
        tokenAuthorization: { ...authorization, value: authorization.value.toString(), validAfter: authorization.validAfter.toString(), validBefore: authorization.validBefore.toString() },
      };
      const res = await call('/entrypoints/token_sell', body, payer);
      expect(await usdc(payer.address)).toBe(before);
      return { status: res.status, error: (await json(res)).error };
    }

    const seconds = () => BigInt(Math.floor(clock.now().getTime() / 1000));
    it.each([
      ['forged (signed by another key)', 'signature', async () => sign({}, { signer: devAccount(9) })],
      ['expired', 'expiring', async () => sign({ validAfter: 0n, validBefore: seconds() - 10n })],
      ['not yet valid', 'not_yet_valid', async () => sign({ validAfter: seconds() + 3_600n })],
      ['to another address than custody', 'to', async () => sign({ to: devAccount(9).address })],
      ['value other than tokens', 'value', async () => sign({ value: parseTokens('999') })],
      ['reused (its nonce already pulled)', 'used', async () => sign({ nonce: usedNonce })],
    ] as const)('%s → 400 TOKEN_AUTHORIZATION_INVALID (reason %s)', async (_label, reason, make) => {
      const r = await refused(await make());
      expect(r.status).toBe(400);
      expect(r.error).toMatchObject({ code: 'TOKEN_AUTHORIZATION_INVALID', details: { reason } });
    });

    it('cancelled on chain by its signer → 400 (used)', async () => {
      const authorization = await sign();
      const wallet = createWalletClient({ account: w, transport: http(rpcUrl()) });
      const signature = await w.signTypedData({
        domain: { name: token.name, version: '1', chainId: NETWORKS[TESTNET].chainId, verifyingContract: token.address as Hex },
        types: { CancelAuthorization: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }] },
        primaryType: 'CancelAuthorization',
        message: { authorizer: w.address, nonce: authorization.nonce as Hex },
      });
      const hash = await wallet.writeContract({
        chain: null,
        address: token.address as Hex,
        abi: LAUNCH_TOKEN_ABI,
        functionName: 'cancelAuthorization',
        args: [w.address, authorization.nonce as Hex, signature],
      });
      await chain().waitForTransactionReceipt({ hash });
      const r = await refused(authorization);
      expect(r.error).toMatchObject({ code: 'TOKEN_AUTHORIZATION_INVALID', details: { reason: 'used' } });
    });

    it('paid by a wallet other than `from` → 409 (payer)', async () => {
      const r = await refused(await sign(), devAccount(9));
      expect(r.status).toBe(409);
      expect(r.error).toMatchObject({ code: 'TOKEN_AUTHORIZATION_INVALID', details: { reason: 'payer' } });
    });

    it('more tokens than the wallet holds on chain → INSUFFICIENT_BALANCE', async () => {
      const held = await tokenBalance(token.address, w.address);
      const tokens = formatTokens(held + 1n);
      const r = await refused(await sign({ value: held + 1n }), w, tokens);
      expect(r.error.code).toBe('INSUFFICIENT_BALANCE');
    });
  });

  it('the tokens moved away after the fee settled: the pull fails, the fee is refunded, nothing is lost', async () => {
    const w = devAccount(9);
    const token = await launch(w, 'MOV');
    await buy(w, token.tokenId, '2');
    await drain();
    const held = await tokenBalance(token.address, w.address);
    const usdcBefore = await usdc(w.address);
    const elsewhere = devAccount(4).address;
    faults.afterSettle = async () => {
      const wallet = createWalletClient({ account: w, transport: http(rpcUrl()) });
      const hash = await wallet.writeContract({ chain: null, address: token.address as Hex, abi: erc20Abi, functionName: 'transfer', args: [elsewhere, held] });
      await chain().waitForTransactionReceipt({ hash });
    };
    const res = await call('/entrypoints/token_sell', await signedSellBody(service.url, w, token.tokenId, '1000'), w);
    const body = await json(res);
    expect(body.error).toMatchObject({ code: 'TOKEN_AUTHORIZATION_INVALID', details: { reason: 'pull_failed' } });
    expect(await tokenBalance(token.address, elsewhere)).toBe(held); // nothing was pulled
    await drain(); // the refund payout is sent and confirmed
    expect(await usdc(w.address)).toBe(usdcBefore); // the $0.01 fee came back
    const paid = lastPaymentNonce();
    const payment = await uow.run((s) => s.payments.findByNonce(TESTNET, paid.from, paid.nonce));
    expect(payment?.state).toBe('REFUNDED');
  });

  it('a crash after a deployment and a delivery are recorded, before they are broadcast: each lands exactly once', async () => {
    const w = devAccount(5);
    faults.crashAfterDeploymentRecord = true;
    faults.crashAfterDeliveryRecord = true;
    const token = await launch(w, 'CRD');
    const bought = await buy(w, token.tokenId, '1.5');
    await service.runWorkers(); // the deployment is recorded as SENT, then the "crash" before broadcasting
    expect(await chain().getCode({ address: token.address as Hex })).toBeUndefined();
    await drain(6, 5_000);
    expect((await json(await fetch(`${service.url}/tokens/${token.tokenId}`))).data.deployment.state).toBe('DEPLOYED');
    const d = (await json(await fetch(`${service.url}/api/deliveries/${bought.delivery.deliveryId}`))).data;
    expect(d.state).toBe('CONFIRMED');
    expect(faults.crashAfterDeliveryRecord).toBe(false); // the delivery did crash once
    expect(await tokenBalance(token.address, w.address)).toBe(parseTokens(bought.tokensReceived));
  });

  it('a crash right after the pull is mined: the reconciler books the sell and pays out exactly once', async () => {
    const w = devAccount(6);
    const token = await launch(w, 'CRP');
    await buy(w, token.tokenId, '3');
    await drain();
    const tokensBefore = await tokenBalance(token.address, w.address);
    const usdcBefore = await usdc(w.address);
    faults.crashAfterPullMined = true;
    const res = await call('/entrypoints/token_sell', await signedSellBody(service.url, w, token.tokenId, '50000'), w);
    // The answer is lost with the crash: 202 pending, the payment id to follow.
    expect(res.status).toBe(202);
    expect(await tokenBalance(token.address, w.address)).toBe(tokensBefore - parseTokens('50000')); // the pull did happen
    const { from, nonce } = lastPaymentNonce();
    const payment = await uow.run((s) => s.payments.findByNonce(TESTNET, from, nonce));
    expect((await json(res)).data.paymentId).toBe(payment!.paymentId);
    expect(payment?.state).toBe('SETTLED');

    await drain(); // the reconciler applies it (the recorded pull is found mined), the payout worker pays
    const applied = (await uow.run((s) => s.payments.get(payment!.paymentId)))!;
    expect(applied.state).toBe('APPLIED');
    const answer = (await json(await fetch(`${service.url}/api/payments/${payment!.paymentId}`))).data;
    expect(answer.state).toBe('APPLIED');
    const trades = (await json(await fetch(`${service.url}/api/tokens/${token.tokenId}/trades`))).data.items.filter((t: { side: string }) => t.side === 'sell');
    expect(trades).toHaveLength(1);
    expect(await tokenBalance(token.address, w.address)).toBe(tokensBefore - parseTokens('50000')); // pulled once
    const proceeds = parseUsd(trades[0].usdAmount) - parseUsd(trades[0].feeUsd);
    expect(await usdc(w.address)).toBe(usdcBefore - parseUsd('0.01') + proceeds);
  });

  it('the RPC goes down while a delivery is in flight: it waits, then confirms once the RPC is back, sent once', async () => {
    const w = devAccount(7);
    const token = await launch(w, 'RPC');
    await drain(); // deployed
    const bought = await buy(w, token.tokenId, '1');
    faults.rpcDownAfterNextBroadcast = true;
    await drain(3, 5_000);
    const waiting = (await json(await fetch(`${service.url}/api/deliveries/${bought.delivery.deliveryId}`))).data;
    expect(waiting.state).toBe('SENT'); // broadcast, its receipt unknown while the RPC is down
    expect(faults.rpcDown).toBe(true);
    faults.rpcDown = false;
    await drain(4, 31_000);
    const d = (await json(await fetch(`${service.url}/api/deliveries/${bought.delivery.deliveryId}`))).data;
    expect(d.state).toBe('CONFIRMED');
    expect(await tokenBalance(token.address, w.address)).toBe(parseTokens(bought.tokensReceived));
  });

  it('a token from before tokens went on chain is deployed at its address and its holders receive their ledger balances', async () => {
    const [a, b] = [devAccount(8), devAccount(9)];
    const token = await launch(a, 'OLD');
    const bought = [await buy(a, token.tokenId, '2'), await buy(b, token.tokenId, '1'), await buy(a, token.tokenId, '0.5')];
    // What a 1.0 database holds: the token and its trades and positions, nothing on chain.
    await queryDatabase(url, `update tokens set address = null, deployment_state = 'PENDING' where token_id = '${token.tokenId}'`);
    await queryDatabase(url, `delete from deployments where token_id = '${token.tokenId}'`);
    await queryDatabase(url, `delete from deliveries where token_id = '${token.tokenId}'`);
    expect((await json(await fetch(`${service.url}/tokens/${token.tokenId}`))).data.address).toBeNull();

    const deps = service.application.deps;
    const backfill = () => backfillTokens({ uow: deps.uow, tokenIssuer: deps.tokenIssuer, ids: deps.ids, clock: deps.clock, logger: deps.logger });
    expect(await backfill()).toBe(1);
    expect(await backfill()).toBe(0); // once only
    await drain();
    const now = (await json(await fetch(`${service.url}/tokens/${token.tokenId}`))).data;
    expect(now.address).toBe(token.address); // the same CREATE2 address it would have had
    expect(now.deployment.state).toBe('DEPLOYED');
    const got = (i: number) => parseTokens(bought[i]!.tokensReceived);
    expect(await tokenBalance(token.address, a.address)).toBe(got(0) + got(2));
    expect(await tokenBalance(token.address, b.address)).toBe(got(1));
    expect(await tokenBalance(token.address, CUSTODY)).toBe(SUPPLY - got(0) - got(1) - got(2));
  });
});

import { describe, expect, it } from 'vitest';
import { getAddress, keccak256, toHex, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { TESTNET, NETWORKS, type Network } from '../../src/domain/network.js';
import { receiveAuthorizationTypedData, type TokenAuthorization } from '../../src/domain/token-authorization.js';
import type { TokenIssuer, TokenSpec } from '../../src/ports/token-issuer.js';
import { pollUntil } from '../support/wait.js';

export interface TokenIssuerHarness {
  issuer: TokenIssuer;
  /** The chain's time (unix seconds): the next block is at least this late. */
  now(): Promise<bigint>;
  /** Submits a holder's signed EIP-3009 CancelAuthorization on `token` (anyone may submit it). */
  cancel(network: Network, token: string, authorizer: string, nonce: string, signature: string): Promise<void>;
  /** Takes the code away from `address`: what a chain that is not the books' has there. */
  removeCode(network: Network, address: string): Promise<void>;
}

const network = TESTNET;
const SUPPLY = 1_000_000_000n * 10n ** 18n;
// 32 characters, the longest name a token may have, 4 UTF-8 bytes each: past OpenZeppelin's 31-byte EIP712 limit.
const LONG_NAME = '𝔏𝔞𝔲𝔫𝔠𝔥 𝔗𝔬𝔨𝔢𝔫 𝔚𝔦𝔱𝔥 𝔄 𝔏𝔬𝔫𝔤 𝔑𝔞𝔪𝔢 𝔦𝔰';
let counter = 0;
const spec = (over: Partial<TokenSpec> = {}): TokenSpec => ({
  tokenId: `01JTEST${(counter += 1).toString().padStart(6, '0')}`,
  name: 'Test Token',
  symbol: 'TEST',
  totalSupply: SUPPLY,
  ...over,
});
const randomNonce = () => keccak256(toHex(`${Math.random()}-${(counter += 1)}`));

export function tokenIssuerContract(name: string, make: () => Promise<TokenIssuerHarness>) {
  describe(`TokenIssuer contract: ${name}`, () => {
    /** Broadcasts, then follows the transaction until it is no longer pending (a node may mine a moment later). */
    async function mined(h: TokenIssuerHarness, prepared: { rawTx: string; txHash: string }) {
      await h.issuer.broadcast(network, prepared.rawTx);
      const status = async () => {
        const s = await h.issuer.status(network, prepared.txHash, prepared.rawTx);
        return s === 'pending' ? null : s;
      };
      return (await pollUntil(status)) ?? 'pending';
    }

    async function deploy(h: TokenIssuerHarness, s = spec()) {
      expect(await mined(h, await h.issuer.prepareDeploy(network, s))).toBe('confirmed');
      return { address: h.issuer.predictAddress(network, s), name: s.name, spec: s };
    }

    /** A fresh holder with `amount` tokens delivered from custody. */
    async function holderWith(h: TokenIssuerHarness, token: string, amount: bigint) {
      const holder = privateKeyToAccount(generatePrivateKey());
      expect(await mined(h, await h.issuer.prepareTransfer(network, token, holder.address, amount))).toBe('confirmed');
      return holder;
    }

    async function authorize(
      h: TokenIssuerHarness,
      signer: PrivateKeyAccount,
      token: { address: string; name: string },
      over: Partial<Omit<TokenAuthorization, 'signature'>> = {},
    ): Promise<TokenAuthorization> {
      const t = await h.now();
      const message = {
        from: signer.address,
        to: h.issuer.custody(network),
        value: 400n * 10n ** 18n,
        validAfter: t - 60n,
        validBefore: t + 3600n,
        nonce: randomNonce(),
        ...over,
      };
      // Signed from the plain typed data the API hands out, as a wallet would.
      const typed = receiveAuthorizationTypedData({ chainId: NETWORKS[network].chainId, token, message });
      const signature = await signer.signTypedData({
        domain: { ...typed.domain, verifyingContract: typed.domain.verifyingContract as Hex },
        types: typed.types,
        primaryType: typed.primaryType,
        message: { ...typed.message, from: typed.message.from as Hex, to: typed.message.to as Hex, nonce: typed.message.nonce as Hex },
      });
      return { ...message, signature };
    }

    it('predicts where the deploy puts the token; the contract has the name, symbol, 18 decimals and the whole supply at custody', async () => {
      const h = await make();
      expect([...LONG_NAME]).toHaveLength(32);
      const s = spec({ name: LONG_NAME, symbol: 'LONGNAME10' });
      const address = h.issuer.predictAddress(network, s);
      expect(address).toBe(getAddress(address));
      expect(h.issuer.predictAddress(network, s)).toBe(address);
      expect(h.issuer.predictAddress(network, { ...s, tokenId: `${s.tokenId}X` })).not.toBe(address);
      expect(await h.issuer.isDeployed(network, address)).toBe(false);
      expect(await h.issuer.tokenInfo(network, address)).toBeNull();

      const prepared = await h.issuer.prepareDeploy(network, s);
      expect(prepared.txHash).toMatch(/^0x[0-9a-f]{64}$/);
      expect(await h.issuer.isDeployed(network, address)).toBe(false);
      expect(await mined(h, prepared)).toBe('confirmed');

      expect(await h.issuer.isDeployed(network, address)).toBe(true);
      expect(await h.issuer.tokenInfo(network, address)).toEqual({ name: LONG_NAME, symbol: 'LONGNAME10', decimals: 18, totalSupply: SUPPLY });
      expect(await h.issuer.balanceOf(network, address, h.issuer.custody(network))).toBe(SUPPLY);
    });

    it('a deploy broadcast again deploys once; deploying the same spec again reverts and changes nothing', async () => {
      const h = await make();
      const s = spec();
      const prepared = await h.issuer.prepareDeploy(network, s);
      await h.issuer.broadcast(network, prepared.rawTx);
      await h.issuer.broadcast(network, prepared.rawTx);
      expect(await mined(h, prepared)).toBe('confirmed');
      const address = h.issuer.predictAddress(network, s);
      expect(await mined(h, await h.issuer.prepareDeploy(network, s))).toBe('reverted');
      expect(await h.issuer.isDeployed(network, address)).toBe(true);
      expect(await h.issuer.balanceOf(network, address, h.issuer.custody(network))).toBe(SUPPLY);
    });

    it('a transfer from custody delivers exactly its amount, however often it is broadcast', async () => {
      const h = await make();
      const token = await deploy(h);
      const wallet = privateKeyToAccount(generatePrivateKey()).address;
      const prepared = await h.issuer.prepareTransfer(network, token.address, wallet, 123_456_789n);
      await h.issuer.broadcast(network, prepared.rawTx);
      await h.issuer.broadcast(network, prepared.rawTx);
      expect(await mined(h, prepared)).toBe('confirmed');
      expect(await h.issuer.balanceOf(network, token.address, wallet)).toBe(123_456_789n);
      expect(await h.issuer.balanceOf(network, token.address, h.issuer.custody(network))).toBe(SUPPLY - 123_456_789n);
    });

    it('a batch of transfers of several tokens from custody delivers each exactly, however often it is broadcast; the next batch too', async () => {
      const h = await make();
      const [a, b] = [await deploy(h), await deploy(h, spec({ name: LONG_NAME }))];
      const [w1, w2, w3] = [0, 1, 2].map(() => privateKeyToAccount(generatePrivateKey()).address) as [Hex, Hex, Hex];
      const transfers = [
        { token: a, to: w1, amount: 1_000n },
        { token: b, to: w1, amount: 2_000n },
        { token: a, to: w2, amount: 3_000n },
        { token: a, to: w1, amount: 4_000n },
      ];
      const prepared = await h.issuer.prepareBatchTransfer(network, transfers);
      expect(prepared?.txHash).toMatch(/^0x[0-9a-f]{64}$/);
      await h.issuer.broadcast(network, prepared!.rawTx);
      expect(await mined(h, prepared!)).toBe('confirmed');
      expect(await h.issuer.balanceOf(network, a.address, w1)).toBe(5_000n);
      expect(await h.issuer.balanceOf(network, b.address, w1)).toBe(2_000n);
      expect(await h.issuer.balanceOf(network, a.address, w2)).toBe(3_000n);
      expect(await h.issuer.balanceOf(network, a.address, h.issuer.custody(network))).toBe(SUPPLY - 8_000n);
      expect(await h.issuer.balanceOf(network, b.address, h.issuer.custody(network))).toBe(SUPPLY - 2_000n);

      const again = await h.issuer.prepareBatchTransfer(network, [
        { token: b, to: w3, amount: 7n },
        { token: a, to: w3, amount: 9n },
      ]);
      expect(await mined(h, again!)).toBe('confirmed');
      expect(await h.issuer.balanceOf(network, b.address, w3)).toBe(7n);
      expect(await h.issuer.balanceOf(network, a.address, w3)).toBe(9n);
    });

    it('a batch with one transfer custody cannot make reverts and moves nothing at all', async () => {
      const h = await make();
      const token = await deploy(h);
      const [w1, w2] = [0, 1].map(() => privateKeyToAccount(generatePrivateKey()).address) as [Hex, Hex];
      const prepared = await h.issuer.prepareBatchTransfer(network, [
        { token, to: w1, amount: 5n },
        { token, to: w2, amount: SUPPLY },
      ]);
      expect(await mined(h, prepared!)).toBe('reverted');
      expect(await h.issuer.balanceOf(network, token.address, w1)).toBe(0n);
      expect(await h.issuer.balanceOf(network, token.address, w2)).toBe(0n);
      expect(await h.issuer.balanceOf(network, token.address, h.issuer.custody(network))).toBe(SUPPLY);
    });

    it('a prepared transaction that was never broadcast is not confirmed and moves nothing', async () => {
      const h = await make();
      const token = await deploy(h);
      const wallet = privateKeyToAccount(generatePrivateKey()).address;
      const prepared = await h.issuer.prepareTransfer(network, token.address, wallet, 1n);
      expect(await h.issuer.status(network, prepared.txHash, prepared.rawTx)).not.toBe('confirmed');
      expect(await h.issuer.balanceOf(network, token.address, wallet)).toBe(0n);
      h.issuer.release(network);
    });

    it('a transfer of a token that is not deployed is mined as a success that moves nothing: no-effect, never confirmed', async () => {
      const h = await make();
      const address = h.issuer.predictAddress(network, spec());
      const wallet = privateKeyToAccount(generatePrivateKey()).address;
      expect(await mined(h, await h.issuer.prepareTransfer(network, address, wallet, 5n))).toBe('no-effect');
      expect(await h.issuer.isDeployed(network, address)).toBe(false);
      expect(await h.issuer.balanceOf(network, address, wallet)).toBe(0n);
    });

    it('a batch, a deploy or a pull mined without its effect (the factory and the token without code) is no-effect, never confirmed', async () => {
      const h = await make();
      const token = await deploy(h);
      const holder = await holderWith(h, token.address, 1_000n * 10n ** 18n);
      const pull = await authorize(h, holder, token);
      // Signed while the chain is still the books' (a batch is signed only where the factory can batch).
      const batch = (await h.issuer.prepareBatchTransfer(network, [{ token, to: holder.address, amount: 5n }]))!;
      // Then the chain is not the books': neither the factory nor the token has code there.
      await h.removeCode(network, h.issuer.factory(network));
      await h.removeCode(network, token.address);
      expect(await mined(h, batch)).toBe('no-effect');
      expect(await mined(h, await h.issuer.prepareDeploy(network, spec()))).toBe('no-effect');
      expect(await mined(h, await h.issuer.prepareReceive(network, token.address, pull))).toBe('no-effect');
    });

    it('a receive with a valid authorization pulls exactly its value to custody and uses its nonce', async () => {
      const h = await make();
      const token = await deploy(h, spec({ name: LONG_NAME }));
      const holder = await holderWith(h, token.address, 1_000n * 10n ** 18n);
      const a = await authorize(h, holder, token);
      expect(await h.issuer.recoverReceiveAuthorizer(network, token, a)).toBe(holder.address);
      expect(await h.issuer.authorizationState(network, token.address, holder.address, a.nonce)).toBe(false);

      expect(await mined(h, await h.issuer.prepareReceive(network, token.address, a))).toBe('confirmed');

      expect(await h.issuer.balanceOf(network, token.address, holder.address)).toBe(600n * 10n ** 18n);
      expect(await h.issuer.balanceOf(network, token.address, h.issuer.custody(network))).toBe(SUPPLY - 600n * 10n ** 18n);
      expect(await h.issuer.authorizationState(network, token.address, holder.address, a.nonce)).toBe(true);
    });

    type Refusal = (h: TokenIssuerHarness, holder: PrivateKeyAccount, token: { address: string; name: string }) => Promise<TokenAuthorization>;
    const other = privateKeyToAccount(generatePrivateKey());
    it.each<[string, Refusal, 'holder' | 'other' | 'neither']>([
      ['signed by another key', async (h, holder, token) => authorize(h, other, token, { from: holder.address }), 'other'],
      ['with a value above the signed one', async (h, holder, token) => ({ ...(await authorize(h, holder, token)), value: 500n * 10n ** 18n }), 'neither'],
      ['with a value below the signed one', async (h, holder, token) => ({ ...(await authorize(h, holder, token)), value: 1n }), 'neither'],
      ['that expired', async (h, holder, token) => authorize(h, holder, token, { validBefore: (await h.now()) - 1n }), 'holder'],
      ['that is not yet valid', async (h, holder, token) => authorize(h, holder, token, { validAfter: (await h.now()) + 3600n }), 'holder'],
      ['to a wallet other than custody', async (h, holder, token) => authorize(h, holder, token, { to: other.address }), 'holder'],
      ['for more than the holder has', async (h, holder, token) => authorize(h, holder, token, { value: 1_001n * 10n ** 18n }), 'holder'],
    ])('a receive with an authorization %s pulls nothing', async (_name, make_, signer) => {
      const h = await make();
      const token = await deploy(h);
      const holder = await holderWith(h, token.address, 1_000n * 10n ** 18n);
      const a = await make_(h, holder, token);
      const recovered = await h.issuer.recoverReceiveAuthorizer(network, token, a);
      if (signer === 'holder') expect(recovered).toBe(holder.address);
      else if (signer === 'other') expect(recovered).toBe(other.address);
      else expect(recovered).not.toBe(holder.address);

      expect(await mined(h, await h.issuer.prepareReceive(network, token.address, a))).toBe('reverted');

      expect(await h.issuer.balanceOf(network, token.address, holder.address)).toBe(1_000n * 10n ** 18n);
      expect(await h.issuer.authorizationState(network, token.address, holder.address, a.nonce)).toBe(false);
    });

    it('a reused authorization pulls once', async () => {
      const h = await make();
      const token = await deploy(h);
      const holder = await holderWith(h, token.address, 1_000n * 10n ** 18n);
      const a = await authorize(h, holder, token);
      expect(await mined(h, await h.issuer.prepareReceive(network, token.address, a))).toBe('confirmed');
      expect(await mined(h, await h.issuer.prepareReceive(network, token.address, a))).toBe('reverted');
      expect(await h.issuer.balanceOf(network, token.address, holder.address)).toBe(600n * 10n ** 18n);
    });

    it('an authorization its signer cancelled is marked used and pulls nothing', async () => {
      const h = await make();
      const token = await deploy(h);
      const holder = await holderWith(h, token.address, 1_000n * 10n ** 18n);
      const a = await authorize(h, holder, token);
      const cancel = await holder.signTypedData({
        domain: { name: token.name, version: '1', chainId: NETWORKS[network].chainId, verifyingContract: token.address as Hex },
        types: { CancelAuthorization: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }] },
        primaryType: 'CancelAuthorization',
        message: { authorizer: holder.address, nonce: a.nonce as Hex },
      });
      await h.cancel(network, token.address, holder.address, a.nonce, cancel);
      expect(await h.issuer.authorizationState(network, token.address, holder.address, a.nonce)).toBe(true);
      expect(await mined(h, await h.issuer.prepareReceive(network, token.address, a))).toBe('reverted');
      expect(await h.issuer.balanceOf(network, token.address, holder.address)).toBe(1_000n * 10n ** 18n);
    });

    it('recovers no signer from a malformed authorization', async () => {
      const h = await make();
      const holder = privateKeyToAccount(generatePrivateKey());
      const token = { address: h.issuer.predictAddress(network, spec()), name: 'Test Token' };
      const a = await authorize(h, holder, token);
      expect(await h.issuer.recoverReceiveAuthorizer(network, token, a)).toBe(holder.address);
      // The same signature with s mirrored to the high half: valid for ecrecover, refused by the contract.
      const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
      const s = BigInt(`0x${a.signature.slice(66, 130)}`);
      const v = Number.parseInt(a.signature.slice(130, 132), 16);
      const highS = `${a.signature.slice(0, 66)}${(n - s).toString(16).padStart(64, '0')}${(v === 27 ? 28 : 27).toString(16)}`;
      for (const bad of [
        { ...a, signature: a.signature.slice(0, 128) },
        { ...a, signature: `${a.signature.slice(0, 130)}05` },
        { ...a, signature: highS },
        { ...a, nonce: a.nonce.slice(0, 40) },
        { ...a, from: '0x1234' },
        { ...a, value: -1n },
        { ...a, validBefore: 2n ** 256n },
      ]) {
        expect(await h.issuer.recoverReceiveAuthorizer(network, token, bad)).toBeNull();
      }
      await expect(h.issuer.prepareReceive(network, token.address, { ...a, signature: '0x12' })).rejects.toThrow(/malformed/);
    });
  });
}

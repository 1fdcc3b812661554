/**
 * DevUSDC, tested like a contract on the devnet: EIP-3009 transfers (valid, expired,
 * not yet valid, replayed, wrong signer, cancelled), receiveWithAuthorization, the per-chain
 * EIP-712 domain, and that the committed artifact is what the sources compile to.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createWalletClient, http, keccak256, toHex, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { devnetAccount, USDC_ABI } from '../../../src/adapters/chain/anvil/devnet-constants.js';
import { viemChain } from '../../../src/adapters/kit/evm/viem-chain.js';
import { NETWORKS, PRODUCTION, TESTNET, type Network } from '../../../src/domain/network.js';
import { ARTIFACTS, compile } from '../../../scripts/compile-contracts.js';

import { devnetPerFile } from '../../support/devnet.js';

const devnet = devnetPerFile();

const payer = devnetAccount(5); // 10,000 USDC on 84532
const payee = '0x000000000000000000000000000000000000dEaD' as Hex;
const usdc = NETWORKS[TESTNET].usdc;

function client(account: PrivateKeyAccount | typeof payer, network: Network = TESTNET) {
  return createWalletClient({ account, chain: viemChain(network, devnet.chains[network].rpcUrl), transport: http(devnet.chains[network].rpcUrl) });
}

async function now(): Promise<bigint> {
  return (await devnet.publicClient(TESTNET).getBlock()).timestamp;
}

async function authorize(
  signer: PrivateKeyAccount | typeof payer,
  over: Partial<{ from: Hex; to: Hex; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex }> = {},
  primaryType: 'TransferWithAuthorization' | 'ReceiveWithAuthorization' = 'TransferWithAuthorization',
  network: Network = TESTNET,
) {
  const t = await now();
  const message = {
    from: payer.address,
    to: payee,
    value: 1_000_000n,
    validAfter: t - 60n,
    validBefore: t + 600n,
    nonce: keccak256(toHex(Math.random().toString())),
    ...over,
  };
  const signature = await signer.signTypedData({
    domain: { name: NETWORKS[network].eip712.name, version: '2', chainId: NETWORKS[network].chainId, verifyingContract: NETWORKS[network].usdc },
    types: {
      [primaryType]: [
        { name: 'from', type: 'address' },
        { name: 'to', type: 'address' },
        { name: 'value', type: 'uint256' },
        { name: 'validAfter', type: 'uint256' },
        { name: 'validBefore', type: 'uint256' },
        { name: 'nonce', type: 'bytes32' },
      ],
    },
    primaryType,
    message,
  });
  return { message, signature };
}

const args = (m: Awaited<ReturnType<typeof authorize>>['message'], signature: Hex) =>
  [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce, signature] as const;

async function transfer(a: Awaited<ReturnType<typeof authorize>>, sender = devnetAccount(0)) {
  const hash = await client(sender).writeContract({ address: usdc, abi: USDC_ABI, functionName: 'transferWithAuthorization', args: args(a.message, a.signature) });
  return devnet.publicClient(TESTNET).waitForTransactionReceipt({ hash });
}

const read = (fn: string, a: unknown[] = [], network: Network = TESTNET) =>
  devnet.publicClient(network).readContract({ address: NETWORKS[network].usdc, abi: USDC_ABI, functionName: fn, args: a });

describe('DevUSDC', () => {
  it('has each network’s EIP-712 name, version 2 and 6 decimals', async () => {
    expect(await read('name', [], PRODUCTION)).toBe('USD Coin');
    expect(await read('name', [], TESTNET)).toBe('USDC');
    expect(await read('version')).toBe('2');
    expect(await read('decimals')).toBe(6);
  });

  it('moves funds with a valid authorization and marks the nonce used', async () => {
    const a = await authorize(payer);
    expect(await read('authorizationState', [payer.address, a.message.nonce])).toBe(false);
    expect((await transfer(a)).status).toBe('success');
    expect(await read('balanceOf', [payee])).toBe(1_000_000n);
    expect(await read('authorizationState', [payer.address, a.message.nonce])).toBe(true);
  });

  it.each([
    ['expired', async () => authorize(payer, { validBefore: (await now()) - 1n })],
    ['not yet valid', async () => authorize(payer, { validAfter: (await now()) + 3600n })],
    ['signed by another key', async () => authorize(privateKeyToAccount(generatePrivateKey()))],
    ['for more than the balance', async () => authorize(payer, { value: 10n ** 15n })],
  ])('refuses an authorization %s', async (_name, make) => {
    const a = await make();
    await expect(transfer(a)).rejects.toThrow();
    expect(await read('balanceOf', [payee])).toBe(0n);
  });

  it('refuses a replayed authorization', async () => {
    const a = await authorize(payer);
    await transfer(a);
    await expect(transfer(a)).rejects.toThrow(/used or canceled/);
    expect(await read('balanceOf', [payee])).toBe(1_000_000n);
  });

  it('refuses an authorization cancelled by its signer', async () => {
    const a = await authorize(payer);
    const cancel = await payer.signTypedData({
      domain: { name: 'USDC', version: '2', chainId: NETWORKS[TESTNET].chainId, verifyingContract: usdc },
      types: { CancelAuthorization: [{ name: 'authorizer', type: 'address' }, { name: 'nonce', type: 'bytes32' }] },
      primaryType: 'CancelAuthorization',
      message: { authorizer: payer.address, nonce: a.message.nonce },
    });
    const r = cancel.slice(0, 66) as Hex;
    const s = `0x${cancel.slice(66, 130)}` as Hex;
    const v = Number.parseInt(cancel.slice(130, 132), 16);
    const hash = await client(devnetAccount(0)).writeContract({ address: usdc, abi: USDC_ABI, functionName: 'cancelAuthorization', args: [payer.address, a.message.nonce, v, r, s] });
    await devnet.publicClient(TESTNET).waitForTransactionReceipt({ hash });
    expect(await read('authorizationState', [payer.address, a.message.nonce])).toBe(true);
    await expect(transfer(a)).rejects.toThrow(/used or canceled/);
  });

  it('lets only the payee submit receiveWithAuthorization', async () => {
    const payeeAccount = devnetAccount(3);
    const a = await authorize(payer, { to: payeeAccount.address }, 'ReceiveWithAuthorization');
    const split = (sig: Hex) => [Number.parseInt(sig.slice(130, 132), 16), sig.slice(0, 66) as Hex, `0x${sig.slice(66, 130)}` as Hex] as const;
    const call = (sender: typeof payer) =>
      client(sender).writeContract({
        address: usdc,
        abi: USDC_ABI,
        functionName: 'receiveWithAuthorization',
        args: [a.message.from, a.message.to, a.message.value, a.message.validAfter, a.message.validBefore, a.message.nonce, ...split(a.signature)],
      });
    await expect(call(devnetAccount(0))).rejects.toThrow(/caller must be the payee/);
    await devnet.publicClient(TESTNET).waitForTransactionReceipt({ hash: await call(payeeAccount) });
    expect(await read('balanceOf', [payeeAccount.address])).toBe(1_000_000n);
  });

  // One compile for every contract (it takes seconds each): the committed artifact is what the sources compile to.
  it('every committed contract is what the sources compile to, LaunchToken and LaunchFactory with creation code', () => {
    const committed = JSON.parse(readFileSync(ARTIFACTS, 'utf8')).contracts;
    const fresh = compile();
    expect(Object.keys(fresh).sort()).toEqual(Object.keys(committed).sort());
    for (const name of Object.keys(committed)) expect(fresh[name]!.deployedBytecode, name).toBe(committed[name].deployedBytecode);
    for (const name of ['LaunchToken', 'LaunchFactory']) {
      expect(fresh[name]!.bytecode).toMatch(/^0x[0-9a-f]+$/);
      expect(fresh[name]!.bytecode).toBe(committed[name].bytecode);
    }
  }, 180_000);
});

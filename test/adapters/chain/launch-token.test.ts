/**
 * LaunchToken and LaunchFactory, tested like contracts on the devnet: where the factory puts a
 * token and who can put it there, CREATE2 refusing a second deploy, batch deliveries (all or
 * none, the caller's tokens only, a permit carried along or already used), EIP-2612 permit and EIP-3009
 * in the token's own domain (with a name longer than OpenZeppelin's EIP712 takes). That the
 * committed artifact is what the sources compile to: dev-usdc.test.ts, one compile for all.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { createWalletClient, decodeEventLog, hashDomain, http, keccak256, toHex, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { devnetAccount, LAUNCH_FACTORY_ADDRESS } from '../../../src/adapters/chain/anvil/devnet-constants.js';
import { LAUNCH_FACTORY_ABI, LAUNCH_TOKEN_ABI, predictLaunchTokenAddress } from '../../../src/adapters/kit/evm/contracts/launch-contracts.js';
import { viemChain } from '../../../src/adapters/kit/evm/viem-chain.js';
import { NETWORKS, PRODUCTION, TESTNET } from '../../../src/domain/network.js';
import { devnetPerFile } from '../../support/devnet.js';


const devnet = devnetPerFile();

const network = TESTNET;
const custody = devnetAccount(0);
const stranger = devnetAccount(1);
const spender = devnetAccount(2);
const SUPPLY = 1_000_000_000n * 10n ** 18n;
const NAME = 'A token whose name is 32 chars!!';
const chainId = NETWORKS[network].chainId;
const spec = { tokenId: '01JTOKEN0000000000000000AA', name: NAME, symbol: 'LONG', totalSupply: SUPPLY };

const client = (account: typeof custody) =>
  createWalletClient({ account, chain: viemChain(network, devnet.chains[network].rpcUrl), transport: http(devnet.chains[network].rpcUrl) });
const pc = () => devnet.publicClient(network);

async function deploy(by: typeof custody, s = spec) {
  const hash = await client(by).writeContract({
    address: LAUNCH_FACTORY_ADDRESS,
    abi: LAUNCH_FACTORY_ABI,
    functionName: 'deploy',
    args: [s.tokenId, s.name, s.symbol, s.totalSupply],
  });
  return pc().waitForTransactionReceipt({ hash });
}

const token = (address: Hex, fn: string, args: unknown[] = []) => pc().readContract({ address, abi: LAUNCH_TOKEN_ABI, functionName: fn, args });

describe('LaunchFactory', () => {
  it('sits at its documented address on both devnet chains', async () => {
    for (const n of [PRODUCTION, TESTNET] as const) {
      expect(await devnet.publicClient(n).getCode({ address: LAUNCH_FACTORY_ADDRESS })).toMatch(/^0x[0-9a-f]{100,}$/);
    }
  });

  it('deploys at the address announced for custody, minting the whole supply to custody, and says so in TokenDeployed', async () => {
    const announced = predictLaunchTokenAddress(LAUNCH_FACTORY_ADDRESS, custody.address, spec);
    const onChain = await pc().readContract({
      address: LAUNCH_FACTORY_ADDRESS,
      abi: LAUNCH_FACTORY_ABI,
      functionName: 'predictAddress',
      args: [spec.tokenId, spec.name, spec.symbol, spec.totalSupply, custody.address],
    });
    expect(onChain).toBe(announced);

    const receipt = await deploy(custody);
    expect(receipt.status).toBe('success');
    const event = receipt.logs
      .filter((l) => l.address.toLowerCase() === LAUNCH_FACTORY_ADDRESS.toLowerCase())
      .map((l) => decodeEventLog({ abi: LAUNCH_FACTORY_ABI, data: l.data, topics: l.topics }))[0]!;
    expect(event.eventName).toBe('TokenDeployed');
    expect(event.args).toMatchObject({ token: announced, custody: custody.address, salt: keccak256(toHex(spec.tokenId)), tokenId: spec.tokenId, name: NAME, symbol: 'LONG', totalSupply: SUPPLY });

    expect(await token(announced, 'name')).toBe(NAME);
    expect(await token(announced, 'symbol')).toBe('LONG');
    expect(await token(announced, 'decimals')).toBe(18);
    expect(await token(announced, 'totalSupply')).toBe(SUPPLY);
    expect(await token(announced, 'balanceOf', [custody.address])).toBe(SUPPLY);
    expect(LAUNCH_TOKEN_ABI.some((f) => 'name' in f && f.name === 'mint')).toBe(false);
  });

  it('only custody can produce the announced address: anyone else deploying the same token gets another address and the supply', async () => {
    const announced = predictLaunchTokenAddress(LAUNCH_FACTORY_ADDRESS, custody.address, spec);
    expect((await deploy(stranger)).status).toBe('success');
    const theirs = predictLaunchTokenAddress(LAUNCH_FACTORY_ADDRESS, stranger.address, spec);
    expect(theirs).not.toBe(announced);
    expect(await token(theirs, 'balanceOf', [stranger.address])).toBe(SUPPLY);
    expect(await pc().getCode({ address: announced })).toBeUndefined();

    expect((await deploy(custody)).status).toBe('success');
    expect(await token(announced, 'balanceOf', [custody.address])).toBe(SUPPLY);
  });

  it('refuses to deploy the same token twice', async () => {
    await deploy(custody);
    await expect(deploy(custody)).rejects.toThrow(/already deployed/);
    // Another tokenId is another address.
    expect((await deploy(custody, { ...spec, tokenId: '01JTOKEN0000000000000000BB' })).status).toBe('success');
  });
});

describe('LaunchToken', () => {
  let address: Hex;
  beforeEach(async () => {
    await deploy(custody);
    address = predictLaunchTokenAddress(LAUNCH_FACTORY_ADDRESS, custody.address, spec);
  });

  const domain = () => ({ name: NAME, version: '1', chainId, verifyingContract: address });

  it('has one EIP-712 domain for permit and EIP-3009: the token name, version 1, the chain, the token', async () => {
    expect(await token(address, 'DOMAIN_SEPARATOR')).toBe(hashDomain({ domain: { ...domain(), chainId: BigInt(chainId) }, types: { EIP712Domain: [
      { name: 'name', type: 'string' },
      { name: 'version', type: 'string' },
      { name: 'chainId', type: 'uint256' },
      { name: 'verifyingContract', type: 'address' },
    ] } }));
    const [fields, name, version, id, verifying] = (await token(address, 'eip712Domain')) as [Hex, string, string, bigint, Hex];
    expect([fields, name, version, id, verifying]).toEqual(['0x0f', NAME, '1', BigInt(chainId), address]);
    expect(await token(address, 'version')).toBe('1');
  });

  async function signPermit(owner: PrivateKeyAccount, value: bigint, nonce: bigint, deadline: bigint) {
    const sig = await owner.signTypedData({
      domain: domain(),
      types: {
        Permit: [
          { name: 'owner', type: 'address' },
          { name: 'spender', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'deadline', type: 'uint256' },
        ],
      },
      primaryType: 'Permit',
      message: { owner: owner.address, spender: spender.address, value, nonce, deadline },
    });
    return [Number.parseInt(sig.slice(130, 132), 16), sig.slice(0, 66) as Hex, `0x${sig.slice(66, 130)}` as Hex] as const;
  }

  it('permit: a holder’s signature sets an allowance the spender can use, once', async () => {
    const holder = privateKeyToAccount(generatePrivateKey());
    await pc().waitForTransactionReceipt({ hash: await client(custody).writeContract({ address, abi: LAUNCH_TOKEN_ABI, functionName: 'transfer', args: [holder.address, 1_000n] }) });
    const deadline = (await pc().getBlock()).timestamp + 3600n;
    const [v, r, s] = await signPermit(holder, 700n, 0n, deadline);
    const permit = () => client(spender).writeContract({ address, abi: LAUNCH_TOKEN_ABI, functionName: 'permit', args: [holder.address, spender.address, 700n, deadline, v, r, s] });

    await pc().waitForTransactionReceipt({ hash: await permit() });
    expect(await token(address, 'allowance', [holder.address, spender.address])).toBe(700n);
    expect(await token(address, 'nonces', [holder.address])).toBe(1n);
    await pc().waitForTransactionReceipt({
      hash: await client(spender).writeContract({ address, abi: LAUNCH_TOKEN_ABI, functionName: 'transferFrom', args: [holder.address, spender.address, 700n] }),
    });
    expect(await token(address, 'balanceOf', [spender.address])).toBe(700n);
    await expect(permit()).rejects.toThrow(/ERC2612InvalidSigner/);
  });

  it('permit refuses an expired deadline and another signer', async () => {
    const holder = privateKeyToAccount(generatePrivateKey());
    const now = (await pc().getBlock()).timestamp;
    const expired = await signPermit(holder, 1n, 0n, now - 1n);
    await expect(
      client(spender).writeContract({ address, abi: LAUNCH_TOKEN_ABI, functionName: 'permit', args: [holder.address, spender.address, 1n, now - 1n, ...expired] }),
    ).rejects.toThrow(/ERC2612ExpiredSignature/);
    const forged = await signPermit(privateKeyToAccount(generatePrivateKey()), 1n, 0n, now + 3600n);
    await expect(
      client(spender).writeContract({ address, abi: LAUNCH_TOKEN_ABI, functionName: 'permit', args: [holder.address, spender.address, 1n, now + 3600n, ...forged] }),
    ).rejects.toThrow(/ERC2612InvalidSigner/);
  });

  it('transferWithAuthorization (the EIP-3009 shared with DevUSDC) moves tokens in the token’s domain', async () => {
    const holder = privateKeyToAccount(generatePrivateKey());
    await pc().waitForTransactionReceipt({ hash: await client(custody).writeContract({ address, abi: LAUNCH_TOKEN_ABI, functionName: 'transfer', args: [holder.address, 1_000n] }) });
    const now = (await pc().getBlock()).timestamp;
    const message = { from: holder.address, to: spender.address, value: 250n, validAfter: now - 60n, validBefore: now + 600n, nonce: keccak256(toHex('one')) };
    const signature = await holder.signTypedData({
      domain: domain(),
      types: {
        TransferWithAuthorization: [
          { name: 'from', type: 'address' },
          { name: 'to', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'validAfter', type: 'uint256' },
          { name: 'validBefore', type: 'uint256' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'TransferWithAuthorization',
      message,
    });
    const args = [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, signature] as const;
    const submit = () => client(stranger).writeContract({ address, abi: LAUNCH_TOKEN_ABI, functionName: 'transferWithAuthorization', args });
    expect((await pc().waitForTransactionReceipt({ hash: await submit() })).status).toBe('success');
    expect(await token(address, 'balanceOf', [spender.address])).toBe(250n);
    expect(await token(address, 'authorizationState', [holder.address, message.nonce])).toBe(true);
    await expect(submit()).rejects.toThrow(/used or canceled/);
  });
});

describe('LaunchFactory.deliver', () => {
  const MAX = 2n ** 256n - 1n;
  let address: Hex;
  beforeEach(async () => {
    await deploy(custody);
    address = predictLaunchTokenAddress(LAUNCH_FACTORY_ADDRESS, custody.address, spec);
  });

  /** Custody's permit for the factory: no limit, no deadline, at permit nonce `nonce`. */
  async function factoryPermit(nonce: bigint) {
    const sig = await custody.signTypedData({
      domain: { name: NAME, version: '1', chainId, verifyingContract: address },
      types: { Permit: [{ name: 'owner', type: 'address' }, { name: 'spender', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'nonce', type: 'uint256' }, { name: 'deadline', type: 'uint256' }] },
      primaryType: 'Permit',
      message: { owner: custody.address, spender: LAUNCH_FACTORY_ADDRESS, value: MAX, nonce, deadline: MAX },
    });
    return { token: address, v: Number.parseInt(sig.slice(130, 132), 16), r: sig.slice(0, 66) as Hex, s: `0x${sig.slice(66, 130)}` as Hex };
  }
  const deliver = (by: typeof custody, approvals: Awaited<ReturnType<typeof factoryPermit>>[], deliveries: { token: Hex; to: Hex; amount: bigint }[]) =>
    client(by).writeContract({ address: LAUNCH_FACTORY_ADDRESS, abi: LAUNCH_FACTORY_ABI, functionName: 'deliver', args: [approvals, deliveries], gas: 1_000_000n });
  const wallets = () => [0, 1].map(() => privateKeyToAccount(generatePrivateKey()).address) as [Hex, Hex];
  const mined = async (hash: Promise<Hex>) => (await pc().waitForTransactionReceipt({ hash: await hash })).status;

  it("moves the caller's tokens to every wallet with its permit carried along; the next batch needs none, and a used permit is skipped", async () => {
    const [a, b] = wallets();
    const permit = await factoryPermit(0n);
    expect((await pc().waitForTransactionReceipt({ hash: await deliver(custody, [permit], [{ token: address, to: a, amount: 5n }, { token: address, to: b, amount: 7n }]) })).status).toBe('success');
    expect(await token(address, 'balanceOf', [a])).toBe(5n);
    expect(await token(address, 'balanceOf', [b])).toBe(7n);
    expect(await token(address, 'allowance', [custody.address, LAUNCH_FACTORY_ADDRESS])).toBe(MAX); // never spent down
    const again = await deliver(custody, [permit], [{ token: address, to: a, amount: 1n }]);
    expect((await pc().waitForTransactionReceipt({ hash: again })).status).toBe('success');
    expect(await token(address, 'balanceOf', [a])).toBe(6n);
    expect(await token(address, 'balanceOf', [custody.address])).toBe(SUPPLY - 13n);
  });

  it('all or none: one delivery past the balance reverts them all', async () => {
    const [a, b] = wallets();
    expect(await mined(deliver(custody, [await factoryPermit(0n)], [{ token: address, to: a, amount: 5n }, { token: address, to: b, amount: SUPPLY }]))).toBe('reverted');
    expect(await token(address, 'balanceOf', [a])).toBe(0n);
    expect(await token(address, 'balanceOf', [custody.address])).toBe(SUPPLY);
  });

  it("nobody else can move custody's tokens through it, and a permit someone submitted first does not stop custody's batch", async () => {
    const [a] = wallets();
    const permit = await factoryPermit(0n);
    // The stranger submits custody's permit itself: the factory's allowance is set, nothing moves.
    await pc().waitForTransactionReceipt({
      hash: await client(stranger).writeContract({ address, abi: LAUNCH_TOKEN_ABI, functionName: 'permit', args: [custody.address, LAUNCH_FACTORY_ADDRESS, MAX, MAX, permit.v, permit.r, permit.s] }),
    });
    // …and cannot spend it: the factory moves the caller's tokens only.
    expect(await mined(deliver(stranger, [], [{ token: address, to: stranger.address, amount: 1n }]))).toBe('reverted');
    expect(await token(address, 'balanceOf', [custody.address])).toBe(SUPPLY);
    expect((await pc().waitForTransactionReceipt({ hash: await deliver(custody, [permit], [{ token: address, to: a, amount: 3n }]) })).status).toBe('success');
    expect(await token(address, 'balanceOf', [a])).toBe(3n);
  });
});

/**
 * Uniswap v2 on a real chain (or the devnet): custody approves the router, adds the graduation
 * liquidity and swaps, every transaction signed from custody's one nonce queue (shared with the
 * token issuer and payouts) so its hash is recorded before it is broadcast.
 */
import { decodeFunctionData, encodeFunctionData, erc20Abi, getAddress, parseEventLogs, toEventSelector, zeroAddress, type Hex, type TransactionReceipt } from 'viem';
import { NETWORKS, type Network } from '../../../domain/network.js';
import type { DexRouter, PoolState, SeedOutcome, SeedPool, SwapExactIn, SwapOutcome } from '../../../ports/dex-router.js';
import type { PreparedTransaction } from '../../../ports/token-issuer.js';
import { LAUNCH_FACTORY_ABI } from '../../kit/evm/contracts/launch-contracts.js';
import { describeMissing, logged, missingTransfers } from '../../kit/evm/receipt-effects.js';
import { SignedTransactionSender, type EffectCheck, type NonceQueue, type SignerOptions } from '../../kit/evm/signed-transactions.js';
import { UNISWAP_V2_FACTORY, UNISWAP_V2_PAIR, UNISWAP_V2_ROUTER, type UniswapV2Addresses } from '../../kit/evm/contracts/uniswap-v2.js';

// Fixed gas limits (signed before sending; estimating fails exactly for the reverts we want mined
// and seen). Seeding a new pair deploys it: about 2.5M, plus a correcting swap when someone filled
// it first; a swap about 120k.
const APPROVE_GAS = 100_000n;
const SEED_POOL_GAS = 4_500_000n;
const SWAP_GAS = 300_000n;

const APPROVAL = toEventSelector('Approval(address,address,uint256)');
const POOL_SEEDED = toEventSelector(LAUNCH_FACTORY_ABI.find((e) => e.type === 'event' && e.name === 'PoolSeeded') as never);

export interface ViemDexRouterOptions extends SignerOptions {
  custodyKey: Hex;
  rpcUrls: Partial<Record<Network, string>>;
  /** Uniswap v2 per network; a network without one is not supported. */
  uniswap: Partial<Record<Network, UniswapV2Addresses>>;
  /** The LaunchFactory per network: it seeds graduation pools (seedPool). */
  seeders: Partial<Record<Network, string>>;
  /** Custody's nonce queue, shared with every other signer of that key in the process. */
  nonces?: NonceQueue;
}

export class ViemDexRouter extends SignedTransactionSender implements DexRouter {
  constructor(private readonly options: ViemDexRouterOptions) {
    super(options.custodyKey, options.rpcUrls, options);
  }

  supports(network: Network): boolean {
    return this.options.uniswap[network] !== undefined && this.options.rpcUrls[network] !== undefined;
  }

  custody(_network: Network): Hex {
    return this.txs.address;
  }

  router(network: Network): Hex {
    return getAddress(this.addresses(network).router);
  }

  usdc(network: Network): Hex {
    return getAddress(NETWORKS[network].usdc);
  }

  async pairOf(network: Network, token: string): Promise<Hex | null> {
    const pair = (await this.client(network).readContract({
      address: getAddress(this.addresses(network).factory),
      abi: UNISWAP_V2_FACTORY.abi,
      functionName: 'getPair',
      args: [getAddress(token), this.usdc(network)],
    })) as Hex;
    return pair === zeroAddress ? null : getAddress(pair);
  }

  async reserves(network: Network, token: string): Promise<PoolState | null> {
    const pair = await this.pairOf(network, token);
    if (!pair) return null;
    const client = this.client(network);
    const [token0, reserves] = await Promise.all([
      client.readContract({ address: pair, abi: UNISWAP_V2_PAIR.abi, functionName: 'token0' }) as Promise<Hex>,
      client.readContract({ address: pair, abi: UNISWAP_V2_PAIR.abi, functionName: 'getReserves' }) as Promise<readonly [bigint, bigint, number]>,
    ]);
    const [r0, r1] = reserves;
    if (r0 === 0n || r1 === 0n) return null;
    const usdFirst = token0.toLowerCase() === this.usdc(network).toLowerCase();
    return { pair, usd: usdFirst ? r0 : r1, tokens: usdFirst ? r1 : r0 };
  }

  seeder(network: Network): Hex {
    const seeder = this.options.seeders[network];
    if (!seeder) throw new Error(`no LaunchFactory configured for ${network}`);
    return getAddress(seeder);
  }

  async allowance(network: Network, asset: string, spender: string): Promise<bigint> {
    return this.client(network).readContract({ address: getAddress(asset), abi: erc20Abi, functionName: 'allowance', args: [this.custody(network), getAddress(spender)] });
  }

  async balanceOf(network: Network, asset: string, holder: string): Promise<bigint> {
    return this.client(network).readContract({ address: getAddress(asset), abi: erc20Abi, functionName: 'balanceOf', args: [getAddress(holder)] });
  }

  prepareApprove(network: Network, asset: string, spender: string, amount: bigint): Promise<PreparedTransaction> {
    const data = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [getAddress(spender), amount] });
    return this.sign(network, getAddress(asset), data, APPROVE_GAS);
  }

  prepareSeedPool(network: Network, a: SeedPool): Promise<PreparedTransaction> {
    const data = encodeFunctionData({
      abi: LAUNCH_FACTORY_ABI,
      functionName: 'seedPool',
      args: [getAddress(this.addresses(network).factory), getAddress(a.token), this.usdc(network), a.tokenAmount, a.usdAmount, getAddress(a.lockTo)],
    });
    return this.sign(network, this.seeder(network), data, SEED_POOL_GAS);
  }

  async seedOutcome(network: Network, txHash: string): Promise<SeedOutcome | null> {
    const receipt = await this.txs.receipt(network, txHash);
    if (!receipt || receipt.status !== 'success') return null;
    const [seeded] = parseEventLogs({ abi: LAUNCH_FACTORY_ABI, logs: receipt.logs, eventName: 'PoolSeeded' }) as unknown as {
      args: { pair: Hex; tokenReserve: bigint; usdReserve: bigint; liquidity: bigint; tokensLocked: bigint; usdReturned: bigint };
    }[];
    if (!seeded) return null;
    const { pair, tokenReserve, usdReserve, liquidity, tokensLocked, usdReturned } = seeded.args;
    return { pair: getAddress(pair), tokenReserve, usdReserve, liquidity, tokensLocked, usdReturned };
  }

  prepareSwap(network: Network, s: SwapExactIn): Promise<PreparedTransaction> {
    const data = encodeFunctionData({
      abi: UNISWAP_V2_ROUTER.abi,
      functionName: 'swapExactTokensForTokens',
      args: [s.amountIn, s.amountOutMin, [getAddress(s.tokenIn), getAddress(s.tokenOut)], getAddress(s.to), s.deadline],
    });
    return this.sign(network, this.router(network), data, SWAP_GAS);
  }

  async swapOutcome(network: Network, txHash: string, swap: Pick<SwapExactIn, 'tokenIn' | 'tokenOut'>): Promise<SwapOutcome | null> {
    const receipt = await this.txs.receipt(network, txHash);
    if (!receipt || receipt.status !== 'success') return null;
    // The pair's Swap event says what went in and out on each side; token0 is the lower address
    // of the two (Uniswap v2 sorts them), so the swap's own tokens say which side is which.
    const [event] = parseEventLogs({ abi: UNISWAP_V2_PAIR.abi, logs: receipt.logs, eventName: 'Swap' }) as unknown as {
      args: { amount0In: bigint; amount1In: bigint; amount0Out: bigint; amount1Out: bigint };
    }[];
    if (!event) return null;
    const { amount0In, amount1In, amount0Out, amount1Out } = event.args;
    const inIsToken0 = BigInt(swap.tokenIn) < BigInt(swap.tokenOut);
    return inIsToken0 ? { amountIn: amount0In, amountOut: amount1Out } : { amountIn: amount1In, amountOut: amount0Out };
  }

  /**
   * What each of custody's transactions here must show in its receipt to be confirmed
   * (docs/decisions/0066): an approval, the asset's Approval log; a seeding, the factory's
   * PoolSeeded; a swap, custody's Transfer of exactly what goes in and at least the bound coming
   * out to its recipient.
   */
  protected override missingEffect(network: Network, tx: Parameters<EffectCheck>[1], receipt: TransactionReceipt): string | null {
    if (!tx.to || !tx.data || tx.data === '0x') return null;
    const to = getAddress(tx.to);
    if (this.options.uniswap[network] && to === this.router(network)) {
      const call = decodeFunctionData({ abi: UNISWAP_V2_ROUTER.abi, data: tx.data });
      if (call.functionName !== 'swapExactTokensForTokens') return null;
      const [amountIn, amountOutMin, path, recipient] = call.args as readonly [bigint, bigint, readonly Hex[], Hex];
      return describeMissing(
        missingTransfers(receipt, [
          { token: path[0]!, from: this.custody(network), to: null, amount: amountIn },
          { token: path[path.length - 1]!, from: null, to: recipient, amount: amountOutMin, atLeast: true },
        ]),
      );
    }
    if (this.options.seeders[network] && to === this.seeder(network)) return logged(receipt, to, POOL_SEEDED) ? null : `no PoolSeeded log of ${to}`;
    const call = decodeFunctionData({ abi: erc20Abi, data: tx.data });
    if (call.functionName === 'approve') return logged(receipt, to, APPROVAL) ? null : `no Approval log of ${to}`;
    return null;
  }

  private addresses(network: Network): UniswapV2Addresses {
    const a = this.options.uniswap[network];
    if (!a) throw new Error(`no Uniswap v2 configured for ${network}`);
    return a;
  }

  private client(network: Network) {
    return this.txs.client(network).publicClient;
  }

  private async sign(network: Network, to: Hex, data: Hex, gas: bigint): Promise<PreparedTransaction> {
    const { rawTx, txHash } = await this.txs.sign(network, { to, data, gas });
    return { rawTx, txHash };
  }
}

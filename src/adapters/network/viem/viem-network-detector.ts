/**
 * docs/networks.md from the chain: a wallet with any Base mainnet history — a sent transaction, a USDC
 * balance, or a USDC transfer to or from it in the recent log window — is a production wallet;
 * any other wallet is a testnet wallet. The mainnet signals are read in parallel, each with a
 * timeout, over viem's fallback transport (several RPC URLs).
 */
import { createPublicClient, fallback, parseAbiItem, type Hex, type PublicClient } from 'viem';
import { NETWORKS, PRODUCTION, TESTNET } from '../../../domain/network.js';
import type { Clock } from '../../../ports/clock.js';
import type { Detection, NetworkDetector } from '../../../ports/network-detector.js';
import { ERC20_ABI } from '../../kit/evm/viem-chain.js';
import { rpcTransport } from '../../kit/evm/rpc-transport.js';

const TRANSFER = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)');

export interface ViemNetworkDetectorOptions {
  /** Base mainnet RPC URLs, tried in order (viem fallback). */
  mainnetRpcUrls: string[];
  clock: Clock;
  timeoutMs?: number;
  /** How far back the USDC Transfer log search looks. */
  logLookbackBlocks?: bigint;
}

export class ViemNetworkDetector implements NetworkDetector {
  private readonly client: PublicClient;

  constructor(private readonly options: ViemNetworkDetectorOptions) {
    const timeout = options.timeoutMs ?? 3_000;
    this.client = createPublicClient({
      transport: fallback(
        options.mainnetRpcUrls.map((url) => rpcTransport(url, { timeout, retryCount: 0 })),
        { retryCount: 0 },
      ),
    }) as PublicClient;
  }

  async detect(address: string): Promise<Detection> {
    const wallet = address as Hex;
    const usdc = NETWORKS[PRODUCTION].usdc;
    const [txCount, balance, transfers] = await Promise.all([
      this.client.getTransactionCount({ address: wallet }),
      this.client.readContract({ address: usdc, abi: ERC20_ABI, functionName: 'balanceOf', args: [wallet] }),
      this.transferHistory(wallet, usdc),
    ]);
    const checkedAt = this.options.clock.now();
    if (txCount > 0) return { network: PRODUCTION, reason: 'mainnet-transactions', checkedAt };
    if (balance > 0n) return { network: PRODUCTION, reason: 'mainnet-usdc-balance', checkedAt };
    if (transfers) return { network: PRODUCTION, reason: 'mainnet-usdc-transfers', checkedAt };
    return { network: TESTNET, reason: 'no-mainnet-history', checkedAt };
  }

  private async transferHistory(wallet: Hex, usdc: Hex): Promise<boolean> {
    const latest = await this.client.getBlockNumber();
    const lookback = this.options.logLookbackBlocks ?? 10_000n;
    const fromBlock = latest > lookback ? latest - lookback : 0n;
    const [sent, received] = await Promise.all([
      this.client.getLogs({ address: usdc, event: TRANSFER, args: { from: wallet }, fromBlock, toBlock: latest }),
      this.client.getLogs({ address: usdc, event: TRANSFER, args: { to: wallet }, fromBlock, toBlock: latest }),
    ]);
    return sent.length > 0 || received.length > 0;
  }
}

/**
 * The root's middle phases: the store, then the adapters the application and the workers talk
 * to — each built from the configuration and the host's chains unless the caller gives it.
 */
import { DEVNET_UNISWAP_V2 } from '../adapters/chain/anvil/devnet-constants.js';
import { ViemAuthorizationReader } from '../adapters/chain/viem/viem-authorization-reader.js';
import { ViemChainProbe } from '../adapters/chain/viem/viem-chain-probe.js';
import { ViemTransferLogReader } from '../adapters/chain/viem/viem-transfer-log-reader.js';
import { ViemDexRouter } from '../adapters/dex/viem/viem-dex-router.js';
import { HttpFacilitator } from '../adapters/facilitator/http/http-facilitator.js';
import { LocalFacilitator } from '../adapters/facilitator/local/local-facilitator.js';
import { CachingNetworkDetector } from '../adapters/network/caching/caching-network-detector.js';
import { ViemNetworkDetector } from '../adapters/network/viem/viem-network-detector.js';
import { ViemPayoutSender } from '../adapters/payout/viem/viem-payout-sender.js';
import { MikroOrmUnitOfWork } from '../adapters/persistence/mikro-orm/mikro-orm-unit-of-work.js';
import { ViemReceiptSigner } from '../adapters/receipts/viem/viem-receipt-signer.js';
import { ViemTokenIssuer } from '../adapters/token/viem/viem-token-issuer.js';
import { SiwxWalletProofVerifier } from '../adapters/wallet-proof/siwx/siwx-wallet-proof-verifier.js';
import { ALL_NETWORKS, PRODUCTION, TESTNET, type Network } from '../domain/network.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import type { Closers } from './closers.js';
import type { UniswapV2Config } from './config/chain-config.js';
import type { Config } from './config/config.js';
import type { Host } from './open-host.js';
import type { ServiceOptions, ServicePorts } from './service-options.js';
import { databaseUnreachable } from './start-refusals.js';

/** The store, given or opened; either way the service's, closed with it. */
export async function openStore(config: Config, options: ServiceOptions, closers: Closers): Promise<UnitOfWork> {
  let uow = options.ports?.uow;
  try {
    uow ??= await MikroOrmUnitOfWork.open({ url: config.databaseUrl });
  } catch (e) {
    throw databaseUnreachable(config, e);
  }
  const opened = uow;
  closers.push('store', () => opened.close());
  return opened;
}

/** What talks to the chains and the facilitator. */
export type ChainAdapters = Pick<ServicePorts, 'facilitator' | 'detector' | 'tokenIssuer' | 'dexRouter' | 'payoutSender' | 'authorizations' | 'transferLogs' | 'chainProbe' | 'receiptSigner'>;

/** The Uniswap v2 deployment custody trades through on each network: the devnet's own, or the configured ones. */
export function uniswapOf(config: Config, host: Pick<Host, 'devnet'>): Partial<Record<Network, UniswapV2Config>> {
  return host.devnet
    ? { [PRODUCTION]: DEVNET_UNISWAP_V2, [TESTNET]: DEVNET_UNISWAP_V2 }
    : { ...(config.uniswapV2[PRODUCTION] ? { [PRODUCTION]: config.uniswapV2[PRODUCTION] } : {}), ...(config.uniswapV2[TESTNET] ? { [TESTNET]: config.uniswapV2[TESTNET] } : {}) };
}

export function buildChainAdapters(config: Config, options: ServiceOptions, host: Host): ChainAdapters {
  const given = options.ports ?? {};
  const { clock, logger, treasuryKey, treasuryNonces, launchFactories, droppedAfterBlocks } = host;
  const rpc = host.rpc!;
  const facilitator =
    given.facilitator ??
    (config.facilitatorUrl
      ? new HttpFacilitator({ url: config.facilitatorUrl })
      : new LocalFacilitator({ settlementKey: host.settlementKey, rpcUrls: rpc, nonces: host.settlementNonces, droppedAfterBlocks, log: (message, fields) => logger.warn(message, fields) }));
  const detector =
    given.detector ??
    new CachingNetworkDetector(new ViemNetworkDetector({ mainnetRpcUrls: config.rpcUrls[PRODUCTION] ?? [rpc[PRODUCTION]], clock }), { clock });
  const issuer = given.tokenIssuer ?? new ViemTokenIssuer({ custodyKey: treasuryKey, rpcUrls: rpc, factories: launchFactories, nonces: treasuryNonces, droppedAfterBlocks });
  const uniswap = uniswapOf(config, host);
  return {
    facilitator,
    detector,
    tokenIssuer: options.wrapTokenIssuer ? options.wrapTokenIssuer(issuer) : issuer,
    // The LaunchFactory seeds graduation pools too (decision 0023).
    dexRouter: given.dexRouter ?? new ViemDexRouter({ custodyKey: treasuryKey, rpcUrls: host.rpc ?? {}, uniswap, seeders: launchFactories, nonces: treasuryNonces, droppedAfterBlocks }),
    payoutSender: given.payoutSender ?? new ViemPayoutSender({ treasuryKey, rpcUrls: rpc, nonces: treasuryNonces, droppedAfterBlocks }),
    authorizations: given.authorizations ?? new ViemAuthorizationReader({ rpcUrls: rpc }),
    transferLogs: given.transferLogs ?? new ViemTransferLogReader({ rpcUrls: host.rpc ?? {} }),
    chainProbe: given.chainProbe !== undefined ? given.chainProbe : host.rpc ? new ViemChainProbe({ rpcUrls: host.rpc }) : null,
    // Offers and receipts are signed with the treasury's key: the address payments go to by default.
    receiptSigner: given.receiptSigner !== undefined ? given.receiptSigner : new ViemReceiptSigner({ key: treasuryKey }),
  };
}

/**
 * Sign-In-With-X proofs are bound to the public origin; without PUBLIC_URL, to where this
 * process listens (known once it does: the port may be ephemeral).
 */
export function buildWalletProofs(config: Config, options: ServiceOptions, listening: { origin?: string }): ServicePorts['walletProofs'] {
  return (
    options.ports?.walletProofs ??
    new SiwxWalletProofVerifier({ origin: () => config.publicUrl ?? listening.origin ?? `http://${config.host}:${config.port}`, networks: ALL_NETWORKS })
  );
}

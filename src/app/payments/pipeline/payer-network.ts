/**
 * The network a wallet pays on, by its history (the NetworkDetector port). The challenge asks it
 * of a hinted or proven wallet to offer one network; admission asks it of the payer to refuse a
 * payment signed for the other one.
 */
import { checksummed } from '../../kit/address.js';
import { NetworkDetectionUnavailable } from '../../../domain/errors.js';
import type { Network } from '../../../domain/network.js';
import type { PipelineDeps } from './deps.js';

type DetectionDeps = Pick<PipelineDeps, 'detector' | 'logger' | 'metrics' | 'detectionFailClosed'>;

/** The wallet's network; null when detection fails and the service is configured to go on without it (else 503). */
export async function payerNetwork(deps: DetectionDeps, wallet: string): Promise<Network | null> {
  try {
    return (await deps.detector.detect(wallet)).network;
  } catch (e) {
    deps.metrics.increment('network_detection_total', { result: 'failure' });
    deps.logger.warn('network detection failed', {
      wallet,
      error: e instanceof Error ? e.message : String(e),
      failClosed: deps.detectionFailClosed,
    });
    if (deps.detectionFailClosed) throw new NetworkDetectionUnavailable();
    deps.metrics.increment('network_detection_total', { result: 'fallback' });
    return null;
  }
}

/** A wallet named before paying (proof or X-Wallet-Address) as the caller the rules are checked for; none when its network is unknown. */
export async function hintedCaller(deps: DetectionDeps, hint: string): Promise<{ wallet: string; network: Network } | undefined> {
  const wallet = checksummed(hint);
  const network = await payerNetwork(deps, wallet);
  return network ? { wallet, network } : undefined; // without a network, the 402 offers both
}

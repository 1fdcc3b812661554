/**
 * A cache in front of any NetworkDetector: production answers are kept long (history does not
 * disappear), testnet answers for ten minutes (a wallet may acquire history); concurrent
 * detections of one wallet share one round of RPC calls; the cache is bounded (LRU).
 */
import { PRODUCTION } from '../../../domain/network.js';
import type { Clock } from '../../../ports/clock.js';
import type { Detection, NetworkDetector } from '../../../ports/network-detector.js';

export interface CachingOptions {
  clock: Clock;
  productionTtlMs?: number;
  testnetTtlMs?: number;
  maxEntries?: number;
}

export class CachingNetworkDetector implements NetworkDetector {
  private readonly cache = new Map<string, { detection: Detection; expiresAt: number }>();
  private readonly inFlight = new Map<string, Promise<Detection>>();

  constructor(
    private readonly inner: NetworkDetector,
    private readonly options: CachingOptions,
  ) {}

  async detect(address: string): Promise<Detection> {
    const key = address.toLowerCase();
    const now = this.options.clock.now().getTime();
    const hit = this.cache.get(key);
    if (hit && hit.expiresAt > now) {
      this.cache.delete(key);
      this.cache.set(key, hit); // most recently used last
      return hit.detection;
    }
    const running = this.inFlight.get(key);
    if (running) return running;
    const round = this.inner
      .detect(address)
      .then((detection) => {
        const ttl =
          detection.network === PRODUCTION ? (this.options.productionTtlMs ?? 7 * 24 * 3_600_000) : (this.options.testnetTtlMs ?? 600_000);
        this.cache.delete(key);
        this.cache.set(key, { detection, expiresAt: this.options.clock.now().getTime() + ttl });
        const max = this.options.maxEntries ?? 100_000;
        while (this.cache.size > max) this.cache.delete(this.cache.keys().next().value!);
        return detection;
      })
      .finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, round);
    return round;
  }
}

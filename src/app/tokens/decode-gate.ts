/**
 * How many image decodes run at once (decision 0064). A decode runs on libuv's thread pool, which
 * the process shares with its files, DNS and crypto: four slow decodes at once once held another
 * client's upload for minutes. The gate runs `slots` at once; the others wait in turn, at most
 * `maxQueued` of them and each at most `maxWaitMs` — past that the upload is answered 503
 * SERVICE_UNAVAILABLE with a Retry-After, never held.
 */
import { ServiceUnavailable } from '../../domain/errors.js';

export interface DecodeGateLimits {
  /** Decodes at once. */
  slots: number;
  /** Uploads waiting for a slot; one more is answered 503 at once. */
  maxQueued: number;
  /** The longest an upload waits for a slot before it is answered 503. */
  maxWaitMs: number;
}

/** Two decodes at once on any machine: an upload's decode takes 0.1 s, so sixteen in line wait under two seconds. */
export const DECODE_GATE_LIMITS: DecodeGateLimits = { slots: 2, maxQueued: 16, maxWaitMs: 10_000 };

/** Retry-After of a refusal: about what the line takes to move. */
const RETRY_AFTER_SECONDS = 2;

interface Waiter {
  start(): void;
}

export class DecodeGate {
  private running = 0;
  private readonly waiting: Waiter[] = [];

  constructor(private readonly limits: DecodeGateLimits = DECODE_GATE_LIMITS) {}

  /** Runs `work` when a slot is free; the slot is held until `work` has settled, whoever stopped waiting for it. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  /** Decodes running and waiting, for tests and metrics. */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private acquire(): Promise<void> {
    if (this.running < this.limits.slots) {
      this.running++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.limits.maxQueued) return Promise.reject(busy());
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        reject(busy());
      }, this.limits.maxWaitMs);
      this.waiting.push(waiter);
    });
  }

  /** The slot passes to the first in line, else it is free. */
  private release(): void {
    const next = this.waiting.shift();
    if (next) next.start();
    else this.running--;
  }
}

function busy(): ServiceUnavailable {
  return new ServiceUnavailable('Too many images are being decoded right now; send the upload again in a moment.', RETRY_AFTER_SECONDS, { reason: 'image_decoders_busy' });
}

/**
 * Settles fair launches' raises once they end (raises/settle-raise.ts): each pass takes the
 * raises due — RAISING past their end, COLLECTING — and moves each as far as it can go. Every
 * step is a compare-and-set, so two processes, or a pass after a crash, settle a raise once.
 */
import type { AppDeps } from '../kit/deps.js';
import type { AppMetrics } from '../kit/metrics.js';
import type { Logger } from '../../ports/logger.js';
import { type RaiseStep, settleRaise } from '../raises/index.js';

export interface RaiseSettlerDeps extends AppDeps {
  metrics: AppMetrics;
  logger: Logger;
  /** Raises settled per pass. */
  batch?: number;
}

export class RaiseSettler {
  constructor(private readonly deps: RaiseSettlerDeps) {}

  /** One pass; returns where each raise due stands after it, by token. */
  async runOnce(): Promise<Map<string, RaiseStep>> {
    const { deps } = this;
    const due = await deps.uow.run((s) => s.raises.due(deps.clock.now(), deps.batch ?? 20));
    const steps = new Map<string, RaiseStep>();
    for (const raise of due) {
      try {
        const step = await settleRaise(deps, raise);
        steps.set(raise.tokenId, step);
        if (step === 'filled' || step === 'failed') deps.metrics.increment('raises_settled_total', { outcome: step });
      } catch (e) {
        // One raise's trouble (a chain that does not answer) does not hold up the others: next pass.
        deps.logger.warn('settling a raise failed; will retry', { tokenId: raise.tokenId, error: (e as Error).message });
      }
    }
    return steps;
  }
}

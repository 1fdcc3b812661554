/**
 * The signer's side of custody intents (docs/decisions/0031). A process that does not sign for
 * custody records what its request needs signed — a sell's pull, a pool swap — and waits for the
 * record; the process that does sign answers each intent here, exactly as its own request would
 * sign: the first transaction recorded before it is broadcast, or, for one the asker saw dropped,
 * a new one replacing it by compare-and-set. The rest (broadcasting again, following to a
 * receipt, the sell or buy itself) stays with the asker, or with the reconciler after a crash.
 *
 *   intent ──▶ recorded already? ─ no ──▶ sign, record, broadcast ──▶ answered (intent deleted)
 *                    │ yes, and the asker saw it dropped (and it is) ──▶ sign again, replace ──┘
 *                    └ otherwise: nothing to sign ─────────────────────────────────────────────┘
 */
import type { CustodyIntent, CustodyIntentKind } from '../../ports/custody-intent-store.js';
import { isNotSent, type CustodyTransaction, type NotSent } from '../../ports/custody-transaction-store.js';
import type { Logger } from '../../ports/logger.js';
import type { AppDeps } from '../kit/deps.js';
import { signAgain, signFirst, type ExactlyOnce } from './exactly-once-sender.js';
import { swapOfIntent } from './pool-swap.js';
import { pullOfIntent } from './token-pull.js';

/** An intent the signer still cannot sign after this long is dropped. */
const GIVE_UP_AFTER_MS = 15 * 60_000;

const KINDS: Record<CustodyIntentKind, (deps: Pick<AppDeps, 'clock' | 'tokenIssuer' | 'dex'>, intent: CustodyIntent) => ExactlyOnce<CustodyTransaction>> = {
  pull: pullOfIntent,
  swap: swapOfIntent,
};

/** Answers the intents waiting (while this process signs for custody); returns how many it answered. */
export async function answerIntents(deps: AppDeps & { logger: Logger }, limit = 50): Promise<number> {
  const asked = await deps.uow.run((s) => s.intents.open(limit));
  let answered = 0;
  for (const intent of asked) {
    if (!(deps.custody?.signing() ?? true)) break;
    try {
      await answer(deps, intent);
      if (await deps.uow.run((s) => s.intents.answered(intent))) answered += 1;
    } catch (e) {
      const fields = { kind: intent.kind, paymentId: intent.paymentId, error: (e as Error).message };
      if (Date.now() - intent.requestedAt.getTime() < GIVE_UP_AFTER_MS) {
        deps.logger.warn('a custody intent could not be signed; will retry', fields);
      } else if (await deps.uow.run((s) => s.intents.answered(intent))) {
        // Its payment is the reconciler's now (signed inline there, or refunded after its own wait).
        deps.logger.error('a custody intent could not be signed for 15 minutes; dropped', fields);
      }
    }
  }
  return answered;
}

async function answer(deps: AppDeps & { logger: Logger }, intent: CustodyIntent): Promise<void> {
  const send = KINDS[intent.kind](deps, intent);
  const recorded = await deps.uow.run((s) => send.store(s).get(intent.paymentId));
  let stands: CustodyTransaction | NotSent;
  if (!recorded) {
    stands = await signFirst(deps, send);
  } else if (!isNotSent(recorded) && intent.replaces === recorded.txHash && (await send.chain.status(send.network, recorded.txHash, recorded.rawTx)) === 'dropped') {
    stands = await signAgain(deps, send, recorded);
  } else {
    return; // signed already, replaced already, or refused before signing: the asker follows the record
  }
  if (isNotSent(stands)) return; // a copy of the operation refused it meanwhile: nothing to send
  // The asker broadcasts too; this one saves it a round.
  await send.chain.broadcast(send.network, stands.rawTx).catch(() => undefined);
}

import { NotFound } from '../../domain/errors.js';
import type { AppDeps } from '../kit/deps.js';
import { receiptOf } from './extensions/receipts.js';
import { paymentView } from '../kit/views.js';

export function getPayment(deps: Pick<AppDeps, 'uow'>, paymentId: string) {
  return deps.uow.run(async (stores) => {
    const payment = await stores.payments.get(paymentId);
    // One 404 code for every lookup by id (docs/api.md "Error codes" NOT_FOUND); `details` says what was missing.
    if (!payment) throw new NotFound(`Payment ${paymentId} does not exist.`, { resource: 'payment', paymentId });
    // The signed receipt issued at settlement (docs/api.md "Signed offers and receipts"), null until there is one; the client's
    // payment identifier (docs/api.md "Payment identifier"), null when it gave none.
    const identifier = await stores.paymentIds.findByPayment(paymentId);
    return { ...paymentView(payment), paymentIdentifier: identifier?.id ?? null, receipt: receiptOf(await stores.payments.getResponse(paymentId)) };
  });
}

/** Where a payment stands (null: no such payment): what a pending answer names. */
export async function paymentState(deps: Pick<AppDeps, 'uow'>, paymentId: string): Promise<string | null> {
  return (await deps.uow.run((stores) => stores.payments.get(paymentId)))?.state ?? null;
}

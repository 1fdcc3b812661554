import { NotFound } from '../../domain/errors.js';
import type { AppDeps } from '../deps.js';
import { receiptOf } from '../extensions/receipts.js';
import { paymentView } from '../views.js';

export function getPayment(deps: AppDeps, paymentId: string) {
  return deps.uow.run(async (stores) => {
    const payment = await stores.payments.get(paymentId);
    // One 404 code for every lookup by id (SPEC §10 NOT_FOUND); `details` says what was missing.
    if (!payment) throw new NotFound(`Payment ${paymentId} does not exist.`, { resource: 'payment', paymentId });
    // The signed receipt issued at settlement (#17.3), null until there is one; the client's
    // payment identifier (#17.2), null when it gave none.
    const identifier = await stores.paymentIds.findByPayment(paymentId);
    return { ...paymentView(payment), paymentIdentifier: identifier?.id ?? null, receipt: receiptOf(await stores.payments.getResponse(paymentId)) };
  });
}

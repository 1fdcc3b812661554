import { PaymentNotFound } from '../../domain/errors.js';
import type { AppDeps } from '../deps.js';
import { receiptOf } from '../extensions/receipts.js';
import { paymentView } from '../views.js';

export function getPayment(deps: AppDeps, paymentId: string) {
  return deps.uow.read(async (stores) => {
    const payment = await stores.payments.get(paymentId);
    if (!payment) throw new PaymentNotFound(paymentId);
    // The signed receipt issued at settlement (#17.3), null until there is one.
    return { ...paymentView(payment), receipt: receiptOf(await stores.payments.getResponse(paymentId)) };
  });
}

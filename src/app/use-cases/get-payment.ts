import { PaymentNotFound } from '../../domain/errors.js';
import type { AppDeps } from '../deps.js';
import { paymentView } from '../views.js';

export function getPayment(deps: AppDeps, paymentId: string) {
  return deps.uow.read(async (stores) => {
    const payment = await stores.payments.get(paymentId);
    if (!payment) throw new PaymentNotFound(paymentId);
    return paymentView(payment);
  });
}

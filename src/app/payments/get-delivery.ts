import { NotFound } from '../../domain/errors.js';
import type { AppDeps } from '../kit/deps.js';
import { deliveryView } from '../kit/views.js';

/** GET /api/deliveries/:id: where a buy's tokens are on their way to the buyer's wallet. */
export function getDelivery(deps: Pick<AppDeps, 'uow'>, deliveryId: string) {
  return deps.uow.run(async (stores) => {
    const delivery = await stores.deliveries.get(deliveryId);
    if (!delivery) throw new NotFound(`Delivery ${deliveryId} does not exist.`, { resource: 'delivery', deliveryId });
    return deliveryView(delivery);
  });
}

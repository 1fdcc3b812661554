/**
 * Orders (docs/api.md "Orders"): limit buys, stop losses and take profits — placed, read, cancelled, executed.
 * This is the room's door: what the rest of src/app may use of it (depcruise: rooms-are-entered-by-their-door).
 */
export { executeCrossed, expireOrders, resumeExecuting } from './execute-orders.js';
export { orderReads, placeOrderEntrypoint } from './catalogue.js';

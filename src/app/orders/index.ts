/** The orders room's door: what the rest of src/app may use of it (the depcruise rule rooms-are-entered-by-their-door). */
export { executeCrossed, expireOrders, resumeExecuting } from './execute-orders.js';
export { orderReads, placeOrderEntrypoint } from './order-catalogue.js';

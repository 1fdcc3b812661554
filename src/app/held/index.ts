/**
 * Held authorizations (decision 0067): a signed USDC or token authorization checked, held unused, collected exactly once, and a buy paid by what it collected.
 * This is the room's door: what the rest of src/app may use of it (depcruise: rooms-are-entered-by-their-door).
 */
export { buyWithCollected, planCollectedBuy, refundCollected } from './buy-with-collected.js';
export { CollectPending, collectHeld, heldUnusable } from './collect.js';
export { heldKeyOf, holdAuthorization, paymentHolder, refuseIfHeld, type HeldAuthorizationKey } from './hold-authorization.js';
export { checkHeldAuthorization, checkHeldTokenAuthorization, heldAuthorizationFields, heldAuthorizationTypedData, ownFee, stablecoin, type HeldAuthorization, type Payer } from './usdc-authorization.js';

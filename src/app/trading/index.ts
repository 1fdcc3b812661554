/**
 * Trading (docs/api.md "Paid endpoints"): buy, sell, quote, positions, the sell's typed data; the venues (curve, pool) and their booking, graduation, the trade rows.
 * This is the room's door: what the rest of src/app may use of it (depcruise: rooms-are-entered-by-their-door).
 */
export { buyPlanOfSwap, checkBuySize } from './buy-token.js';
export { tradingEntrypoints, tradingReads } from './catalogue.js';
export { checkEarners, checkReferrer } from './check-referrer.js';
export { graduate } from './graduate.js';
export { deployedToken, loadToken, tradedToken } from './load-token.js';
export { refuseLockedSale } from './locked-sale.js';
export { sellAuthorizationOutput, sellOutput } from './schemas.js';
export { queueTokenReturn, sellToken } from './sell-token.js';
export { bookBuy, buyResult, deliverBought } from './venues/booking.js';
export { bookCurveBuy, buyOnCurve } from './venues/curve-venue.js';
export { type BuyPlan, type BuyResult, type TradePhase } from './venues/trade-venue.js';
export { venueFor, venueNamed, type VenueDeps } from './venues/venue-for.js';

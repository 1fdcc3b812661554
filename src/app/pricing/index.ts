/** The pricing room's door: what the rest of src/app may use of it (the depcruise rule rooms-are-entered-by-their-door). */
export { PAYMENT_ASSET_DECIMALS, amountAtQuote } from './asset-pricing.js';
export { type PriceBoard, type ProviderAnswer, type ProviderState } from './price-board.js';

/**
 * USD prices of the payment assets (docs/pricing.md): the quote router over its sources, the board of their answers, what an asset amount is worth.
 * This is the room's door: what the rest of src/app may use of it (depcruise: rooms-are-entered-by-their-door).
 */
export { PAYMENT_ASSET_DECIMALS, amountAtQuote } from './asset-pricing.js';
export { type PriceBoard, type ProviderAnswer, type ProviderState } from './price-board.js';

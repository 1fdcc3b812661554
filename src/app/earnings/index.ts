/**
 * Earnings (docs/api.md "Fees and earnings"): a wallet's fee shares as creator or referrer, and the creators by earnings.
 * This is the room's door: what the rest of src/app may use of it (depcruise: rooms-are-entered-by-their-door).
 */
export { earningsReads } from './catalogue.js';

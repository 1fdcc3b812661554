/**
 * Tokens (docs/api.md "Paid endpoints", "Token images"): create, image, metadata, analytics, and the reads of tokens, trades, candles, holders, events and stats.
 * This is the room's door: what the rest of src/app may use of it (depcruise: rooms-are-entered-by-their-door).
 */
export { tokenEntrypoints, tokenReads } from './catalogue.js';

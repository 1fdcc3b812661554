/**
 * Fair launches (docs/api.md "Fair launches"): pledges, their cancel, the raise, and its settlement.
 * This is the room's door: what the rest of src/app may use of it (depcruise: rooms-are-entered-by-their-door).
 */
export { pledgeEntrypoint, raiseReads } from './catalogue.js';
export { settleRaise, type RaiseStep } from './settle-raise.js';

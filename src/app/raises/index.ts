/** The raises room's door: what the rest of src/app may use of it (the depcruise rule rooms-are-entered-by-their-door). */
export { pledgeEntrypoint, raiseReads } from './catalogue.js';
export { settleRaise, type RaiseStep } from './settle-raise.js';

/** The custody room's door: what the rest of src/app may use of it (the depcruise rule rooms-are-entered-by-their-door). */
export { answerIntents } from './custody-intents.js';
export { recordSigned, sendExactlyOnce } from './exactly-once-sender.js';
export { dexOf, refuseSwap, swapOnPool, swapRecorded } from './pool-swap.js';
export { PullPending, pullTokens, receiveOf } from './token-pull.js';

/**
 * Custody's transactions, each sent exactly once (decision 0059): the sender, pool swaps, token pulls, and the intents another process answers.
 * This is the room's door: what the rest of src/app may use of it (depcruise: rooms-are-entered-by-their-door).
 */
export { answerIntents } from './custody-intents.js';
export { recordSigned, sendExactlyOnce } from './exactly-once-sender.js';
export { dexOf, refuseSwap, swapOnPool, swapRecorded } from './pool-swap.js';
export { PullPending, pullTokens, receiveOf } from './token-pull.js';

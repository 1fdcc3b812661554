/**
 * Comments (docs/api.md "Comments"): post, list, and the creator's hide.
 * This is the room's door: what the rest of src/app may use of it (depcruise: rooms-are-entered-by-their-door).
 */
export { commentEntrypoint, commentReads } from './catalogue.js';

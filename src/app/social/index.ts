/** The social room's door: what the rest of src/app may use of it (the depcruise rule rooms-are-entered-by-their-door). */
export { commentEntrypoint, commentReads } from './catalogue.js';

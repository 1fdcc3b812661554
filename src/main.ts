/**
 * The entry point (`npm start`, `node dist/main.js`): on Node 24 — the project's own when the
 * machine's is older (bin/on-node-24.js) — the service (service-main.ts). Nothing else is imported
 * before the check, so no native module loads on a Node it cannot run on.
 */
import { onNode24 } from '../bin/on-node-24.js';

if (onNode24()) await import('./service-main.js');

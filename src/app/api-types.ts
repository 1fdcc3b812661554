/**
 * The API's types, as a client written in TypeScript reads them (the page,
 * src/adapters/web/browser): each derived from the catalogue's entries and the service's own
 * envelopes, never written again. Import it as types only (`import type`): nothing of zod or the
 * app enters a bundle.
 */
import type { z } from 'zod';
import type { ErrorEnvelope, SuccessEnvelope } from './kit/error-status.js';
import type { eventView } from './kit/views.js';
import type { reads } from './catalogue.js';

/** A free read of the catalogue, with its operation name and output schema. */
type ReadEntry = ReturnType<typeof reads>[number];

/** What each free read answers (its entry's output schema), by its operation name. */
export type ReadOutputs = { [E in ReadEntry as E['operation']]: z.output<E['outputSchema']> };

/** Where each free read answers over HTTP (its entry's path, `:param`s and all), by its operation name. */
export type ReadPaths = { [E in ReadEntry as E['operation']]: E['http']['path'] };

/** A free read's operation name. */
export type ReadName = keyof ReadPaths;

/** Every answer's envelope (docs/api.md "Envelopes"). */
export type Envelope<T> = SuccessEnvelope<T> | ErrorEnvelope;

/** An event of GET /api/events (docs/api.md "Events"). */
export type StreamEvent = ReturnType<typeof eventView>;

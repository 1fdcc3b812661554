/** GET /entrypoints: each paid entrypoint with its price and the JSON Schemas of its input and output. */
import { z } from 'zod';
import { entrypointPaths, type AnyEntrypoint } from '../../../app/kit/catalogue/entrypoint.js';
import type { Settings } from '../../../app/kit/settings.js';
import { WELL_KNOWN_X402 } from './discovery.js';

export function manifest(entrypoints: Iterable<AnyEntrypoint>, settings: Settings) {
  return [...entrypoints].map((e) => ({
    name: e.name,
    description: e.description,
    price: e.price(settings),
    currency: 'USDC',
    // How it may be paid (docs/api.md "Paying", "Pay once, call many"): one authorization per call, or from a channel.
    schemes: settings.batchSettlement ? ['exact', 'batch-settlement'] : ['exact'],
    operation: e.operation,
    method: 'POST',
    paths: entrypointPaths(e),
    inputSchema: z.toJSONSchema(e.inputSchema, { io: 'input', unrepresentable: 'any' }),
    outputSchema: z.toJSONSchema(e.outputSchema, { unrepresentable: 'any' }),
    discovery: WELL_KNOWN_X402,
  }));
}

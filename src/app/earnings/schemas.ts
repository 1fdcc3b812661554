/**
 * Earnings' schemas: creators by earnings.
 * The request and answer schemas (zod) of this room's operations; shared primitives are in ../kit/schemas.ts and ../kit/output-schemas.ts.
 */
import { z } from 'zod';
import { limit } from '../kit/schemas.js';

export const creatorsQuery = z.strictObject({
  sort: z.literal('earnings').default('earnings').meta({ description: 'what creators are ranked by' }),
  limit: limit(100, 20),
});

// ---- fair launches (docs/api.md "Fair launches") ----

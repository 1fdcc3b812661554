/**
 * The catalogue's worked examples as discovery crawlers use them (docs/api.md "Discovery",
 * decision 0075). A crawler POSTs a resource's Bazaar example body to find its 402, but the
 * examples name a token, a quote and signatures of their own small world (kit/catalogue/
 * example-fixtures.ts), which no deployment holds: the rules would refuse them (404, 409) before
 * any price. So a request whose input is exactly its entrypoint's example is answered with the 402
 * at the example's price, whatever the books hold. Nothing else changes: paying one goes through the
 * rules like any payment and is refused there (the example's token does not exist), nothing charged.
 */
import { parseUsd } from '../../domain/money.js';
import type { AnyEntrypoint, Prepared } from '../kit/catalogue/entrypoint.js';
import type { Settings } from '../kit/settings.js';
import { hashRequest } from './request-hash.js';

/** Each entrypoint's example, as the hash of the request it makes (parsed as any input is). */
const exampleHashes = new WeakMap<AnyEntrypoint, string>();

function exampleHash(ep: AnyEntrypoint): string {
  let hash = exampleHashes.get(ep);
  if (hash === undefined) exampleHashes.set(ep, (hash = hashRequest(ep.name, ep.parse(ep.example.input))));
  return hash;
}

/** The 402's price of a request that is its entrypoint's own example; null for any other request. */
export function examplePrice(settings: Settings, ep: AnyEntrypoint, requestHash: string): Prepared | null {
  if (requestHash !== exampleHash(ep)) return null;
  const rule = ep.priceRule;
  if (rule.kind === 'fixed') return { amount: rule.usd(settings), network: null };
  return ep.example.priceUsd === undefined ? null : { amount: parseUsd(ep.example.priceUsd), network: null };
}

import { describe, expect, it } from 'vitest';
import { PRODUCTION, TESTNET, type Network } from '../../src/domain/network.js';
import type { ChainProbe } from '../../src/ports/chain-probe.js';

/**
 * A probe of two networks: `live` answers as itself; `dead` does not answer at all (nothing
 * listens); `wrong` answers for `live`, but as another chain (a misconfigured URL).
 */
export interface ChainProbeHarness {
  probe: ChainProbe;
  live: Network;
  dead: ChainProbe;
  wrong: ChainProbe;
}

export function chainProbeContract(name: string, make: () => Promise<ChainProbeHarness>) {
  describe(`ChainProbe contract: ${name}`, () => {
    it('a chain that answers as itself is ok', async () => {
      const h = await make();
      expect(await h.probe.probe(h.live)).toBe('ok');
    });

    it('a chain that does not answer is down, without throwing, within seconds', async () => {
      const h = await make();
      const started = Date.now();
      expect(await Promise.all([h.dead.probe(PRODUCTION), h.dead.probe(TESTNET)])).toEqual(['down', 'down']);
      // Seconds, not a hang: a probe waits at most its own timeout (2 s for ViemChainProbe); the
      // rest of the bound is a loaded machine's slack.
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it('a node that answers as another chain is down', async () => {
      const h = await make();
      expect(await h.wrong.probe(h.live)).toBe('down');
    });
  });
}

import { describe, expect, it } from 'vitest';
import { NETWORKS, PRODUCTION, TESTNET, type Network } from '../../src/domain/network.js';
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
  /** An address with code on `live`'s chain (its LaunchFactory). */
  factory: string;
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

    it("a chain's identity: its chain id, its genesis hash and the factory's code hash, the same each time; no code is null", async () => {
      const h = await make();
      const identity = await h.probe.identity(h.live, h.factory);
      expect(identity).toEqual({
        network: h.live,
        chainId: NETWORKS[h.live].chainId,
        genesisHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
        factory: h.factory.toLowerCase(),
        factoryCodeHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      });
      expect(await h.probe.identity(h.live, h.factory)).toEqual(identity);
      const nowhere = '0x00000000000000000000000000000000000b0b00';
      expect(await h.probe.identity(h.live, nowhere)).toEqual({ ...identity, factory: nowhere, factoryCodeHash: null });
    });

    it('the identity of a chain that does not answer is an error, within seconds', async () => {
      const h = await make();
      const started = Date.now();
      await expect(h.dead.identity(TESTNET, h.factory)).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(5_000);
    });
  });
}

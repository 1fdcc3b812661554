/**
 * Uniswap v2 on the devnet (docs/api.md "Graduation and the Uniswap v2 pool"): the published artifacts work together as published (the
 * router's hard-coded pair hash is the published pair's), the factory, router and WETH sit at the
 * same addresses on both chains, and a restart on the same state — even one whose state file was
 * lost and is rebuilt from the journal — finds them there and deploys nothing twice.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEVNET_UNISWAP_V2, UNISWAP_DEPLOYER } from '../../../src/adapters/chain/anvil/devnet-constants.js';
import { PAIR_INIT_CODE_HASH, ROUTER_PAIR_INIT_CODE_HASH, UNISWAP_V2_FACTORY, UNISWAP_V2_ROUTER } from '../../../src/adapters/kit/evm/contracts/uniswap-v2.js';
import { PRODUCTION, TESTNET } from '../../../src/domain/network.js';
import { UNISWAP_ARTIFACTS, uniswapArtifacts } from '../../../scripts/compile-contracts.js';
import { TestDevnet } from '../../support/devnet.js';
import { freePorts } from '../../support/free-ports.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('the published Uniswap v2 artifacts', () => {
  it("the service's own copy is the packages' builds, from the versions package.json pins", async () => {
    const fresh = uniswapArtifacts();
    expect(fresh.packages).toEqual({ '@uniswap/v2-core': '1.0.1', '@uniswap/v2-periphery': '1.1.0-beta.0' });
    expect(JSON.parse(readFileSync(UNISWAP_ARTIFACTS, 'utf8'))).toEqual(fresh);
    expect(UNISWAP_V2_ROUTER).toEqual(fresh.contracts.UniswapV2Router02);
  });

  it("the router's pairFor hash is keccak256 of the published pair's creation code", () => {
    expect(PAIR_INIT_CODE_HASH).toBe(ROUTER_PAIR_INIT_CODE_HASH);
    expect(UNISWAP_V2_ROUTER.bytecode.includes(ROUTER_PAIR_INIT_CODE_HASH.slice(2))).toBe(true);
  });
});

describe('the devnet Uniswap v2', () => {
  it('is deployed on both chains at the fixed addresses, wired together, and kept across restarts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'devnet-uni-'));
    dirs.push(dir);
    const port = await freePorts();
    let devnet = await TestDevnet.start({ port, stateDir: dir });
    try {
      for (const n of [PRODUCTION, TESTNET] as const) {
        const c = devnet.publicClient(n);
        expect(devnet.chains[n].uniswapV2).toEqual(DEVNET_UNISWAP_V2);
        for (const a of Object.values(DEVNET_UNISWAP_V2)) expect((await c.getCode({ address: a }))?.length).toBeGreaterThan(100);
        expect(await c.readContract({ address: DEVNET_UNISWAP_V2.router, abi: UNISWAP_V2_ROUTER.abi, functionName: 'factory' })).toBe(DEVNET_UNISWAP_V2.factory);
        expect(await c.readContract({ address: DEVNET_UNISWAP_V2.router, abi: UNISWAP_V2_ROUTER.abi, functionName: 'WETH' })).toBe(DEVNET_UNISWAP_V2.weth);
        expect(await c.readContract({ address: DEVNET_UNISWAP_V2.factory, abi: UNISWAP_V2_FACTORY.abi, functionName: 'allPairsLength' })).toBe(0n);
        expect(await c.getTransactionCount({ address: UNISWAP_DEPLOYER.address })).toBe(3);
      }
      // A kill -9 before anvil saves its state: the journal brings the deployments back.
      for (const pid of devnet.pids) process.kill(pid, 'SIGKILL');
      await devnet.stop();
      rmSync(join(dir, 'anvil-8453.json'), { force: true });
      devnet = await TestDevnet.start({ port, stateDir: dir });
      for (const n of [PRODUCTION, TESTNET] as const) {
        const c = devnet.publicClient(n);
        expect(await c.readContract({ address: DEVNET_UNISWAP_V2.router, abi: UNISWAP_V2_ROUTER.abi, functionName: 'factory' })).toBe(DEVNET_UNISWAP_V2.factory);
        expect(await c.getTransactionCount({ address: UNISWAP_DEPLOYER.address })).toBe(3);
      }
    } finally {
      await devnet.stop();
    }
  }, 60_000);
});

/** Deliveries owed on the fake chain, for the delivery workers' tests: a token deployed there and DEPLOYED in the books, and tokens owed of it. */
import type { SequentialIdGenerator } from '../../src/adapters/ids/sequential/sequential-id-generator.js';
import type { FakeTokenIssuer } from '../../src/adapters/token/fake/fake-token-issuer.js';
import { newDelivery } from '../../src/domain/delivery.js';
import { TESTNET } from '../../src/domain/network.js';
import type { Clock } from '../../src/ports/clock.js';
import type { UnitOfWork } from '../../src/ports/unit-of-work.js';
import { token as tokenFixture } from './fixtures.js';

const SUPPLY = 10n ** 27n;

export function owedDeliveries(deps: { uow: UnitOfWork; issuer: FakeTokenIssuer; ids: SequentialIdGenerator; clock: Clock }) {
  const { uow, issuer, ids, clock } = deps;
  let n = 0;
  return {
    /** A token deployed on the fake chain and DEPLOYED in the books. */
    async deployed(name = 'Batch Token') {
      const t = tokenFixture({ name });
      const spec = { tokenId: t.tokenId, name, symbol: t.symbol, totalSupply: SUPPLY };
      const prepared = await issuer.prepareDeploy(TESTNET, spec);
      await issuer.broadcast(TESTNET, prepared.rawTx);
      const address = issuer.predictAddress(TESTNET, spec);
      await uow.transaction((s) => s.tokens.insert({ ...t, address, deployment: { state: 'DEPLOYED', txHash: prepared.txHash, blockNumber: 1n } }));
      return { tokenId: t.tokenId, address };
    },
    /** `amount` of `tokenId` owed to `wallet`, enqueued; its delivery's id. */
    async owe(tokenId: string, wallet: string, amount: bigint) {
      n += 1;
      const d = newDelivery({ deliveryId: ids.next('dlv'), network: TESTNET, tokenId, wallet, amount, sourceId: `trd_${n}`, now: clock.now() });
      await uow.transaction((s) => s.deliveries.enqueue(d));
      return d.deliveryId;
    },
  };
}

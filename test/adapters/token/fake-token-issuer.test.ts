/** The fake chain's scripted faults, which the workers' tests lean on. */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../../src/adapters/clock/fake/fake-clock.js';
import { FakeTokenIssuer } from '../../../src/adapters/token/fake/fake-token-issuer.js';
import { TESTNET } from '../../../src/domain/network.js';

const network = TESTNET;
const wallet = '0x000000000000000000000000000000000000bEEF';
const spec = { tokenId: '01JFAKE', name: 'Fake', symbol: 'FAKE', totalSupply: 1_000n };

async function deployed() {
  const issuer = new FakeTokenIssuer({ clock: new FakeClock() });
  const d = await issuer.prepareDeploy(network, spec);
  await issuer.broadcast(network, d.rawTx);
  return { issuer, token: issuer.predictAddress(network, spec) };
}

describe('FakeTokenIssuer', () => {
  it('holds a transaction pending until unblocked, then mines it once', async () => {
    const { issuer, token } = await deployed();
    const t = await issuer.prepareTransfer(network, token, wallet, 10n);
    issuer.scriptNext('hold');
    await issuer.broadcast(network, t.rawTx);
    await issuer.broadcast(network, t.rawTx);
    expect(await issuer.status(network, t.txHash, t.rawTx)).toBe('pending');
    expect(await issuer.unblock(network)).toBe(1);
    await issuer.broadcast(network, t.rawTx);
    expect(await issuer.status(network, t.txHash, t.rawTx)).toBe('confirmed');
    expect(await issuer.balanceOf(network, token, wallet)).toBe(10n);
  });

  it('a dropped transaction is never mined; signed again after a release it takes the same nonce and the old one stays dropped', async () => {
    const { issuer, token } = await deployed();
    const first = await issuer.prepareTransfer(network, token, wallet, 10n);
    issuer.scriptNext('drop');
    await issuer.broadcast(network, first.rawTx);
    expect(await issuer.status(network, first.txHash, first.rawTx)).toBe('dropped');
    await issuer.broadcast(network, first.rawTx);
    expect(await issuer.balanceOf(network, token, wallet)).toBe(0n);

    const lost = await issuer.prepareTransfer(network, token, wallet, 20n);
    issuer.release(network); // its record failed: never broadcast
    const again = await issuer.prepareTransfer(network, token, wallet, 20n);
    await issuer.broadcast(network, again.rawTx);
    expect(await issuer.status(network, again.txHash, again.rawTx)).toBe('confirmed');
    expect(await issuer.status(network, lost.txHash, lost.rawTx)).toBe('dropped');
    await issuer.broadcast(network, lost.rawTx); // its nonce is taken: the node refuses it
    expect(await issuer.balanceOf(network, token, wallet)).toBe(20n);
  });

  it('a scripted revert moves nothing', async () => {
    const { issuer, token } = await deployed();
    const t = await issuer.prepareTransfer(network, token, wallet, 10n);
    issuer.scriptNext('reverted');
    await issuer.broadcast(network, t.rawTx);
    expect(await issuer.status(network, t.txHash, t.rawTx)).toBe('reverted');
    expect(await issuer.balanceOf(network, token, wallet)).toBe(0n);
  });

  it('offline, every call that needs the chain throws; back online, the same transaction goes through', async () => {
    const { issuer, token } = await deployed();
    const t = await issuer.prepareTransfer(network, token, wallet, 10n);
    issuer.setOffline(true);
    await expect(issuer.broadcast(network, t.rawTx)).rejects.toThrow(/unreachable/);
    await expect(issuer.status(network, t.txHash, t.rawTx)).rejects.toThrow(/unreachable/);
    await expect(issuer.balanceOf(network, token, wallet)).rejects.toThrow(/unreachable/);
    await expect(issuer.prepareTransfer(network, token, wallet, 1n)).rejects.toThrow(/unreachable/);
    issuer.setOffline(false);
    await issuer.broadcast(network, t.rawTx);
    expect(await issuer.balanceOf(network, token, wallet)).toBe(10n);
  });

  it('a holder moving tokens away leaves less to pull', async () => {
    const { issuer, token } = await deployed();
    const t = await issuer.prepareTransfer(network, token, wallet, 10n);
    await issuer.broadcast(network, t.rawTx);
    issuer.holderTransfer(network, token, wallet, '0x000000000000000000000000000000000000dEaD', 7n);
    expect(await issuer.balanceOf(network, token, wallet)).toBe(3n);
    expect(() => issuer.holderTransfer(network, token, wallet, '0x000000000000000000000000000000000000dEaD', 4n)).toThrow(/reverted/);
  });
});

/**
 * The ChangeFeed contract, for every store that has one (memory, PostgreSQL; SQLite has none and
 * says so with null): live once open; a committed unit's events name their tokens to every
 * subscriber; a unit that rolls back names nothing; an unsubscribed listener hears nothing more.
 */
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../src/domain/event.js';
import { TESTNET } from '../../src/domain/network.js';
import type { ChangeFeed } from '../../src/ports/change-feed.js';
import { withUow, type UowFactory } from './uow-factory.js';

const event = (tokenId: string | null): NewEvent => ({ type: 'token.created', network: TESTNET, tokenId, data: {}, createdAt: new Date(0) });
const settle = () => new Promise((r) => setTimeout(r, 300)); // PostgreSQL delivers after commit, asynchronously

async function heardWithin(heard: (string | null)[], tokenId: string, ms = 3_000): Promise<boolean> {
  for (const deadline = Date.now() + ms; Date.now() < deadline; await new Promise((r) => setTimeout(r, 10))) if (heard.includes(tokenId)) return true;
  return false;
}

export function changeFeedContract(name: string, make: UowFactory) {
  describe(`ChangeFeed contract: ${name}`, () => {
    const feedOf = (uow: { changeFeed?: ChangeFeed | null }) => {
      expect(uow.changeFeed).toBeTruthy();
      return uow.changeFeed!;
    };

    it('is live once open, and names the token of every event a committed unit appends', () =>
      withUow(make, async (uow) => {
        const feed = feedOf(uow);
        expect(feed.live).toBe(true);
        const heard: (string | null)[] = [];
        feed.subscribe((t) => heard.push(t));
        await uow.transaction(async (s) => {
          await s.events.append(event('tok_a'));
          await s.events.append(event('tok_b'));
        });
        await uow.run((s) => s.events.append(event('tok_c'))); // a write outside a transaction stands at once
        for (const t of ['tok_a', 'tok_b', 'tok_c']) expect(await heardWithin(heard, t)).toBe(true);
      }));

    it('names nothing for a unit that rolls back, nor for an event of no token', () =>
      withUow(make, async (uow) => {
        const heard: (string | null)[] = [];
        feedOf(uow).subscribe((t) => heard.push(t));
        await expect(
          uow.transaction(async (s) => {
            await s.events.append(event('tok_rolled_back'));
            throw new Error('no');
          }),
        ).rejects.toThrow('no');
        await uow.transaction((s) => s.events.append(event(null)));
        await settle();
        expect(heard.filter((t) => t !== null)).toEqual([]);
      }));

    it('an unsubscribed listener hears nothing more', () =>
      withUow(make, async (uow) => {
        const heard: (string | null)[] = [];
        const stop = feedOf(uow).subscribe((t) => heard.push(t));
        stop();
        await uow.transaction((s) => s.events.append(event('tok_after')));
        await settle();
        expect(heard).toEqual([]);
      }));
  });
}

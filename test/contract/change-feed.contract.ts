/**
 * The ChangeFeed contract, for every store that has one (memory, PostgreSQL, a SQLite file):
 * live once open; a committed unit's events name their tokens to every subscriber; a unit that
 * rolls back names nothing; an unsubscribed listener hears nothing more.
 */
import { describe, expect, it } from 'vitest';
import type { NewEvent } from '../../src/domain/event.js';
import { TESTNET } from '../../src/domain/network.js';
import type { ChangeFeed } from '../../src/ports/change-feed.js';
import type { UnitOfWork } from '../../src/ports/unit-of-work.js';
import { waitFor } from '../support/wait.js';
import { withUow, type UowFactory } from './uow-factory.js';

const event = (tokenId: string | null): NewEvent => ({ type: 'token.created', network: TESTNET, tokenId, data: {}, createdAt: new Date(0) });

/**
 * `echoes`: the store tells of this process's commits a second time, as the database delivers
 * them to every process, after the commit and in commit order (PostgreSQL's notifications, a
 * SQLite file's event-log tail).
 */
export function changeFeedContract(name: string, make: UowFactory, { echoes }: { echoes: boolean }) {
  describe(`ChangeFeed contract: ${name}`, () => {
    const feedOf = (uow: { changeFeed?: ChangeFeed | null }) => {
      expect(uow.changeFeed).toBeTruthy();
      return uow.changeFeed!;
    };
    let markers = 0;
    /**
     * Commits a marker event and waits until `heard` has it as often as the feed tells of a
     * commit: told in commit order, whatever was committed before it has been told by then.
     */
    const marked = async (uow: UnitOfWork, heard: (string | null)[]): Promise<string> => {
      const marker = `tok_marker_${(markers += 1)}`;
      await uow.transaction((s) => s.events.append(event(marker)));
      await waitFor(`the feed to tell of ${marker}`, () => heard.filter((t) => t === marker).length >= (echoes ? 2 : 1));
      return marker;
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
        for (const t of ['tok_a', 'tok_b', 'tok_c']) await waitFor(`the feed to name ${t}`, () => heard.includes(t));
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
        const marker = await marked(uow, heard);
        expect(heard.filter((t) => t !== null && t !== marker)).toEqual([]);
      }));

    it('an unsubscribed listener hears nothing more', () =>
      withUow(make, async (uow) => {
        const heard: (string | null)[] = [];
        const stop = feedOf(uow).subscribe((t) => heard.push(t));
        stop();
        await uow.transaction((s) => s.events.append(event('tok_after')));
        const still: (string | null)[] = [];
        feedOf(uow).subscribe((t) => still.push(t));
        await marked(uow, still); // and tok_after's, told before it
        expect(heard).toEqual([]);
      }));
  });
}

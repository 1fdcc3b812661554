import { describe, expect, it } from 'vitest';
import { rateLimitKey } from '../../src/adapters/http/koa/client-ip.js';
import type { RateLimiter } from '../../src/ports/rate-limiter.js';

/** A limiter with its own budget, sharing no counts with any other made before (a fresh key space). */
export type MakeRateLimiter = (budget: { points: number; durationSeconds: number }) => Promise<RateLimiter>;

export function rateLimiterContract(name: string, make: MakeRateLimiter) {
  describe(`RateLimiter contract: ${name}`, () => {
    it('allows exactly the budget, counting down, then refuses', async () => {
      const l = await make({ points: 5, durationSeconds: 60 });
      const decisions = [];
      for (let i = 0; i < 6; i++) decisions.push(await l.consume('1.2.3.4'));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, true, true, false]);
      expect(decisions.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0, 0]);
      for (const d of decisions) {
        expect(d.limit).toBe(5);
        expect(d.resetSeconds).toBeGreaterThanOrEqual(1);
        expect(d.resetSeconds).toBeLessThanOrEqual(60);
      }
      expect(await l.health()).toBe('ok');
    });

    it('keeps clients apart, and groups an IPv6 /64', async () => {
      const l = await make({ points: 1, durationSeconds: 60 });
      expect((await l.consume('1.2.3.4')).allowed).toBe(true);
      expect((await l.consume('1.2.3.5')).allowed).toBe(true);
      expect((await l.consume(rateLimitKey('2001:db8:0:1::1'))).allowed).toBe(true);
      expect((await l.consume(rateLimitKey('2001:db8:0:1:ffff::2'))).allowed).toBe(false);
      expect((await l.consume(rateLimitKey('2001:db8:0:2::1'))).allowed).toBe(true);
    });

    it('resets when the window ends', async () => {
      const l = await make({ points: 1, durationSeconds: 1 });
      expect((await l.consume('k')).allowed).toBe(true);
      expect((await l.consume('k')).allowed).toBe(false);
      await new Promise((r) => setTimeout(r, 1_100));
      expect((await l.consume('k')).allowed).toBe(true);
    });
  });
}

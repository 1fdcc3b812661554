import { describe, expect, it } from 'vitest';
import type { IdGenerator } from '../../src/ports/id-generator.js';

export function idGeneratorContract(name: string, make: () => IdGenerator, sortable: boolean) {
  describe(`IdGenerator contract: ${name}`, () => {
    it('makes <kind>_ + 26 Crockford base32 characters, unique, in creation order', () => {
      const ids = make();
      const made = Array.from({ length: 10_000 }, (_, i) => ids.next((['tok', 'trd', 'pay', 'qte', 'pout', 'req'] as const)[i % 6]!));
      for (const id of made) expect(id).toMatch(/^(tok|trd|pay|qte|pout|req)_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(new Set(made).size).toBe(made.length);
      if (sortable) {
        const bodies = made.map((id) => id.slice(id.indexOf('_') + 1));
        expect([...bodies].sort()).toEqual(bodies);
      }
    });
  });
}

/**
 * A service's token issuer made to "crash" once, when `fault.armed`, right after a custody
 * transaction (a pull, a collect) is seen mined and before the operation books it: the test arms
 * the fault, the request fails as a dying process would leave it, and a restart must finish it once.
 */
import type { TokenIssuer } from '../../src/ports/token-issuer.js';

export function crashOnceAfterMined(issuer: TokenIssuer, fault: { armed: boolean }, what: string): TokenIssuer {
  return new Proxy(issuer, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (prop !== 'status') return value.bind(target);
      return async (...args: unknown[]) => {
        const status = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        if (status === 'confirmed' && fault.armed) {
          fault.armed = false;
          throw new Error(`simulated crash right after ${what} was mined, before it was booked`);
        }
        return status;
      };
    },
  });
}

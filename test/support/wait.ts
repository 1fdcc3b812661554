/**
 * Waiting in tests: for a condition, with a deadline — never for a fixed time. A test that sleeps
 * "long enough" for a feed to deliver or a block to be mined passes on a quiet machine and fails
 * on a loaded one (or waits needlessly on both); a short deadline is the same bet. The deadline
 * here is generous (30 s): it only bounds a test that would otherwise hang, it is not a claim about
 * speed. A test that means "within X" says so with its own assertion, loose enough to hold under
 * load, and says why in a comment.
 */

export interface WaitOptions {
  /** How long before giving up (30 s; keep it under the test's own timeout). */
  timeoutMs?: number;
  /** The pause between two checks. */
  stepMs?: number;
}

type Truthy<T> = Exclude<T, false | 0 | 0n | '' | null | undefined>;

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `condition`'s value once it is truthy, checked every `stepMs`; once `timeoutMs` has passed, its
 * last value, whatever it is — for a test that asserts on it itself (its expectation then says
 * what was missing). The condition is checked once more at the deadline, however long a check takes.
 */
export async function pollUntil<T>(condition: () => T | Promise<T>, { timeoutMs = 30_000, stepMs = 20 }: WaitOptions = {}): Promise<Awaited<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value || Date.now() >= deadline) return value;
    await pause(stepMs);
  }
}

/**
 * `condition`'s value once it is truthy, checked every `stepMs`; an Error naming `what` (what was
 * awaited) if it is not within `timeoutMs`. A condition that throws fails at once.
 */
export async function waitFor<T>(what: string, condition: () => T | Promise<T>, options: WaitOptions = {}): Promise<Truthy<Awaited<T>>> {
  const value = await pollUntil(condition, options);
  if (!value) throw new Error(`timed out after ${options.timeoutMs ?? 30_000} ms waiting for ${what}`);
  return value as Truthy<Awaited<T>>;
}

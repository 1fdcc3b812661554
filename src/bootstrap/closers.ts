/**
 * What the composition root has opened, as a stack: each resource joins it when it is made, and
 * one teardown — a failed start's or `stop()`'s — closes them in reverse order, each once, every
 * one tried even when another fails, the failures reported together.
 */
export class Closers {
  private readonly stack: { name: string; close: () => unknown }[] = [];
  private closing: Promise<void> | null = null;

  /** `close` runs at teardown, before everything pushed earlier. */
  push(name: string, close: () => unknown): void {
    this.stack.push({ name, close });
  }

  /** Closes everything pushed (once: a second call waits for the first). */
  close(): Promise<void> {
    this.closing ??= this.closeAll();
    return this.closing;
  }

  private async closeAll(): Promise<void> {
    const failures: Error[] = [];
    for (let c = this.stack.pop(); c; c = this.stack.pop()) {
      try {
        await c.close();
      } catch (e) {
        failures.push(new Error(`closing ${c.name}: ${(e as Error)?.message ?? String(e)}`, { cause: e }));
      }
    }
    if (failures.length === 1) throw failures[0]!.cause;
    if (failures.length > 1) throw new AggregateError(failures, failures.map((f) => f.message).join('; '));
  }
}

/**
 * Reads under way per token, each told whether the change feed announced its token (or
 * everything) while it ran. What a cache keeps on the feed's word is only what a read no
 * announcement overtook returned (the token view cache and the token row cache).
 */
export interface Watch {
  readonly changed: boolean;
}

export class ReadWatches {
  private readonly byToken = new Map<string, Set<{ changed: boolean }>>();

  /** The feed announced `tokenId` (null: anything may have changed): every read of it under way is overtaken. */
  announced(tokenId: string | null): void {
    if (tokenId === null) {
      for (const reads of this.byToken.values()) for (const r of reads) r.changed = true;
      return;
    }
    for (const r of this.byToken.get(tokenId) ?? []) r.changed = true;
  }

  /** Runs `read` watched from before it starts; `changed` is its start (true: the feed cannot vouch for it anyway). */
  async watch<T>(tokenId: string, changed: boolean, read: (watch: Watch) => Promise<T>): Promise<T> {
    const watch = { changed };
    let watching = this.byToken.get(tokenId);
    if (!watching) this.byToken.set(tokenId, (watching = new Set()));
    watching.add(watch);
    try {
      return await read(watch);
    } finally {
      watching.delete(watch);
      if (watching.size === 0) this.byToken.delete(tokenId);
    }
  }
}

/**
 * Which tokens changed, as the database tells every process that shares it (docs/performance.md): the hot-view
 * cache drops a token's view when its events commit, in this process or another, instead of
 * asking the database on every read.
 */
export interface ChangeFeed {
  /**
   * `listener` is called with the token id of every committed event (the same id may come more
   * than once), and with `null` when changes may have been missed — the feed (re)connected or
   * lost its connection: forget everything. Returns the unsubscribe function.
   */
  subscribe(listener: (tokenId: string | null) => void): () => void;
  /**
   * True while every change committed from now on will reach the listeners. While false, a
   * reader must ask the database (a view may be stale, however short a time).
   */
  readonly live: boolean;
}

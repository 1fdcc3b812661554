export type IdKind = 'tok' | 'trd' | 'pay' | 'qte' | 'aqt' | 'pout' | 'req' | 'dep' | 'dlv' | 'dlb' | 'grad' | 'earn' | 'cmt' | 'pld' | 'ord';

/** Identifiers: `<kind>_` + a 26-character ULID, e.g. `tok_01JD…`. */
export interface IdGenerator {
  next(kind: IdKind): string;
  /** 32 random bytes as 0x-hex: a fresh EIP-3009 authorization nonce. */
  nonce32(): string;
}

export type IdKind = 'tok' | 'trd' | 'pay' | 'qte' | 'pout' | 'req';

/** Identifiers: `<kind>_` + a 26-character ULID, e.g. `tok_01JD…`. */
export interface IdGenerator {
  next(kind: IdKind): string;
}

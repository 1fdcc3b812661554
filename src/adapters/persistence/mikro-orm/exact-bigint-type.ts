/**
 * Money as exact integers in the database (never REAL): numeric(78,0) on PostgreSQL — every
 * uint256 fits — and TEXT on SQLite, whose INTEGER stops at 2^63. Values travel as decimal
 * strings both ways, so nothing passes through a float.
 */
import { Type, type Platform } from '@mikro-orm/core';

export class ExactBigIntType extends Type<bigint | null, string | null> {
  override convertToDatabaseValue(value: bigint | null): string | null {
    return value === null || value === undefined ? null : value.toString();
  }

  override convertToJSValue(value: string | number | bigint | null): bigint | null {
    if (value === null || value === undefined) return null;
    if (typeof value === 'number' && !Number.isSafeInteger(value)) {
      throw new RangeError('an exact amount was read as an unsafe JavaScript number');
    }
    return BigInt(value);
  }

  override getColumnType(_prop: unknown, platform: Platform): string {
    return platform.getConfig().get('driver')?.name === 'PostgreSqlDriver' ? 'numeric(78,0)' : 'text';
  }
}

export const exact = new ExactBigIntType();

/** Reads a column stored by ExactBigIntType. */
export const big = (v: unknown): bigint => exact.convertToJSValue(v as string)!;
/** Writes a bigint for an ExactBigIntType column. */
export const num = (v: bigint): string => exact.convertToDatabaseValue(v)!;

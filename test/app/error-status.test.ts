/**
 * The error table (docs/api.md "Error codes"): every error class the domain exports has a status — the compiler
 * checks it (`Record<ErrorCode, number>`), and this checks the same at run time — and one code
 * is never shared by two classes.
 */
import { describe, expect, it } from 'vitest';
import * as DomainErrors from '../../src/domain/errors.js';
import { ERROR_STATUS, statusOf } from '../../src/app/kit/error-status.js';
import * as HttpErrors from '../../src/adapters/http/koa/http-errors.js';

function codesOf(module: Record<string, unknown>): Map<string, string> {
  const codes = new Map<string, string>();
  for (const [name, value] of Object.entries(module)) {
    if (typeof value !== 'function' || !(value.prototype instanceof DomainErrors.DomainError)) continue;
    const make = value as new (...args: unknown[]) => DomainErrors.DomainError;
    // Any arguments do: the code is a field, set whatever the constructor is given.
    const instance = name === 'MethodNotAllowed' ? new make(['GET']) : new make('x', 'x', 'x');
    codes.set(name, instance.code);
  }
  return codes;
}

describe('error codes', () => {
  const domain = codesOf(DomainErrors as unknown as Record<string, unknown>);
  it('every domain error class has a row, and the table has no row without a class', () => {
    for (const [name, code] of domain) expect(ERROR_STATUS, `${name} → ${code}`).toHaveProperty(code);
    expect(new Set(domain.values())).toEqual(new Set(Object.keys(ERROR_STATUS)));
  });
  it('one class per code', () => {
    expect(new Set(domain.values()).size).toBe(domain.size);
  });
  it('only INTERNAL_ERROR is a 500', () => {
    for (const code of domain.values()) expect(statusOf(code) === 500).toBe(code === 'INTERNAL_ERROR');
  });
  it("HTTP's own errors are not domain errors and have their own table", () => {
    const transport = codesOf(HttpErrors as unknown as Record<string, unknown>);
    expect(new Set(transport.values())).toEqual(new Set(Object.keys(HttpErrors.TRANSPORT_ERROR_STATUS)));
    for (const code of transport.values()) expect(ERROR_STATUS).not.toHaveProperty(code);
  });
});

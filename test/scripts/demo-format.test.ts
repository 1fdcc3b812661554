/** How `npm run demo` writes figures and lines (scripts/demo-format.ts): short, rounded for reading, at most 100 columns. */
import { describe, expect, it } from 'vitest';
import { line, price, short, signedUsd, significant, tokens, usd } from '../../scripts/demo-format.js';

describe("the demo's figures", () => {
  it('shortens a transaction hash and an address to their ends, and leaves anything else', () => {
    expect(short('0x5f1e9c4b2a7d3e8f6a1b0c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f')).toBe('0x5f1e…0e9f');
    expect(short('0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc')).toBe('0x9965…A4dc');
    expect(short('(none)')).toBe('(none)');
  });

  it('rounds a price to four significant digits without an exponent, however small', () => {
    expect(price('0.000005601028969012')).toBe('$0.000005601');
    expect(price('0.0000000123456')).toBe('$0.00000001235');
    expect(price('1234.5678')).toBe('$1235');
    expect(significant('0.5')).toBe('0.5');
  });

  it('writes dollars to the cent, two significant digits below one, no trailing zeros, with a sign for gains and losses', () => {
    expect([usd('5'), usd('5.01'), usd('1.412345'), usd('0.005647'), usd('0'), usd('-0.045917')]).toEqual(['$5', '$5.01', '$1.41', '$0.0056', '$0', '-$0.05']);
    expect([signedUsd('0.0312'), signedUsd('-0.045917'), signedUsd('0')]).toEqual(['+$0.03', '-$0.05', '+$0']);
    expect(tokens('884495.291384607698648614')).toBe('884495.29');
  });

  it('puts a label in a column of 9 and indents the lines after the first under the text', () => {
    expect(line('sell', 'first', 'second')).toBe('sell     first\n         second');
  });
});

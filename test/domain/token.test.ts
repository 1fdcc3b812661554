import { describe, expect, it } from 'vitest';
import { DEFAULT_CURVE_PARAMS, maxBuyUsd, quoteBuyWithUsd } from '../../src/domain/curve.js';
import { TokenGraduated, ValidationError } from '../../src/domain/errors.js';
import { newToken, NO_LINKS, validateTokenMetadata, withCurve } from '../../src/domain/token.js';

function issuesOf(input: Parameters<typeof validateTokenMetadata>[0]) {
  try {
    validateTokenMetadata(input);
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return (e as ValidationError).issues;
  }
  return [];
}

describe('token metadata', () => {
  it('normalises: NFC, trimmed name, upper-cased symbol, canonical https URL', () => {
    const m = validateTokenMetadata({
      name: '  Cafe\u0301 Coin ',
      symbol: 'cafe1',
      description: 'line one\nline two',
      imageUrl: 'https://example.com/a.png',
    });
    expect(m).toEqual({
      name: 'Café Coin',
      symbol: 'CAFE1',
      description: 'line one\nline two',
      imageUrl: 'https://example.com/a.png',
      thumbnailUrl: null,
      links: NO_LINKS,
    });
    expect(m.name).toBe('Caf\u00e9 Coin');
  });

  it('optional fields may be absent', () => {
    expect(validateTokenMetadata({ name: 'A', symbol: 'A' })).toEqual({
      name: 'A',
      symbol: 'A',
      description: null,
      imageUrl: null,
      thumbnailUrl: null,
      links: NO_LINKS,
    });
  });

  it.each<[string, Parameters<typeof validateTokenMetadata>[0], string]>([
    ['empty name', { name: '  ', symbol: 'A' }, 'name'],
    ['missing name', { symbol: 'A' }, 'name'],
    ['name of 33 characters', { name: 'x'.repeat(33), symbol: 'A' }, 'name'],
    ['control character', { name: 'a\u0007b', symbol: 'A' }, 'name'],
    ['newline in a name', { name: 'a\nb', symbol: 'A' }, 'name'],
    ['bidi override', { name: 'abc\u202Egpj', symbol: 'A' }, 'name'],
    ['bidi isolate', { name: 'a\u2066b', symbol: 'A' }, 'name'],
    ['zero-width space', { name: 'US\u200BDC', symbol: 'A' }, 'name'],
    ['zero-width joiner', { name: 'a\u200Db', symbol: 'A' }, 'name'],
    ['BOM', { name: '\uFEFFa', symbol: 'A' }, 'name'],
    ['symbol with a dash', { name: 'A', symbol: 'A-B' }, 'symbol'],
    ['symbol of 11 characters', { name: 'A', symbol: 'ABCDEFGHIJK' }, 'symbol'],
    ['empty symbol', { name: 'A', symbol: '' }, 'symbol'],
    ['non-latin symbol', { name: 'A', symbol: 'ΑΒΓ' }, 'symbol'],
    // Checked as given, not after upper-casing (issue 51): ß → SS, ı → I, ſ → S, ﬀ → FF, K (Kelvin) stays.
    ['symbol ß', { name: 'A', symbol: 'ßX' }, 'symbol'],
    ['symbol ı (dotless i)', { name: 'A', symbol: 'pıe' }, 'symbol'],
    ['symbol ſ (long s)', { name: 'A', symbol: 'ſ' }, 'symbol'],
    ['symbol ﬀ ligature', { name: 'A', symbol: 'ﬀ' }, 'symbol'],
    ['symbol Kelvin sign', { name: 'A', symbol: '\u212A' }, 'symbol'],
    ['symbol in full-width digits', { name: 'A', symbol: '１２' }, 'symbol'],
    ['description over 500', { name: 'A', symbol: 'A', description: 'd'.repeat(501) }, 'description'],
    ['zero-width in description', { name: 'A', symbol: 'A', description: 'x\u200By' }, 'description'],
    ['http image', { name: 'A', symbol: 'A', imageUrl: 'http://example.com/a.png' }, 'imageUrl'],
    ['javascript image', { name: 'A', symbol: 'A', imageUrl: 'javascript:alert(1)' }, 'imageUrl'],
    ['relative image', { name: 'A', symbol: 'A', imageUrl: '/a.png' }, 'imageUrl'],
    ['image with credentials', { name: 'A', symbol: 'A', imageUrl: 'https://u:p@example.com/a.png' }, 'imageUrl'],
    ['image over 2048', { name: 'A', symbol: 'A', imageUrl: 'https://e.com/' + 'a'.repeat(2040) }, 'imageUrl'],
    // On a public host only (issue 51): the page shows it to every visitor, whose browser fetches it.
    ...[
      'https://127.0.0.1/a.png',
      'https://127.1.2.3/a.png',
      'https://[::1]/a.png',
      'https://localhost/a.png',
      'https://LOCALHOST./a.png',
      'https://shop.localhost/a.png',
      'https://nas.local/a.png',
      'https://db.internal/a.png',
      'https://router.home.arpa/a.png',
      'https://printer/a.png',
      'https://10.0.0.1/a.png',
      'https://172.16.0.1/a.png',
      'https://172.31.255.255/a.png',
      'https://192.168.1.1/a.png',
      'https://100.64.0.1/a.png',
      'https://169.254.169.254/latest/meta-data',
      'https://0.0.0.0/a.png',
      'https://224.0.0.1/a.png',
      'https://255.255.255.255/a.png',
      'https://[::]/a.png',
      'https://[fc00::1]/a.png',
      'https://[fd12:3456::1]/a.png',
      'https://[fe80::1]/a.png',
      'https://[::ffff:127.0.0.1]/a.png',
      'https://[::ffff:192.168.0.1]/a.png',
      'https://[::ffff:7f00:1]/a.png',
      'https://[2002:c0a8:0101::1]/a.png',
      // Literal addresses spelled as integers, in hex or octal: the URL parser reads them as 127.0.0.1.
      'https://2130706433/a.png',
      'https://0x7f000001/a.png',
      'https://0x7f.1/a.png',
      'https://0177.0.0.1/a.png',
      'https://127.1/a.png',
      'https://3232235777/a.png',
    ].map((imageUrl): [string, Parameters<typeof validateTokenMetadata>[0], string] => [`image on ${imageUrl}`, { name: 'A', symbol: 'A', imageUrl }, 'imageUrl']),
    ['site on loopback', { name: 'A', symbol: 'A', website: 'https://127.0.0.1:8080/admin' }, 'website'],
    ['site on a private address', { name: 'A', symbol: 'A', website: 'https://192.168.0.1/' }, 'website'],
    ['number as name', { name: 5, symbol: 'A' }, 'name'],
  ])('rejects %s', (_label, input, path) => {
    expect(issuesOf(input).map((i) => i.path)).toContain(path);
  });

  it('reports every problem at once', () => {
    expect(issuesOf({ name: '', symbol: '!', imageUrl: 'ftp://x' }).map((i) => i.path)).toEqual([
      'name',
      'symbol',
      'imageUrl',
    ]);
  });

  it('takes an https URL on any public host: names (never resolved), public IPv4 and global IPv6 literals', () => {
    for (const url of ['https://example.com/a.png', 'https://cdn.example.org:8443/a.png', 'https://xn--nxasmq6b.com/a', 'https://8.8.8.8/a.png', 'https://172.32.0.1/a.png', 'https://100.128.0.1/a', 'https://[2606:4700::1111]/a.png']) {
      expect(validateTokenMetadata({ name: 'A', symbol: 'A', imageUrl: url, website: url }).imageUrl, url).toBe(new URL(url).href);
    }
  });

  it('says why a host is refused, as the URL parser reads it', () => {
    expect(issuesOf({ name: 'A', symbol: 'A', imageUrl: 'https://2130706433/x.png' })).toEqual([{ path: 'imageUrl', message: expect.stringMatching(/public host: 127\.0\.0\.1 is a loopback/) }]);
  });

  it('counts characters, not UTF-16 units', () => {
    expect(validateTokenMetadata({ name: '🚀'.repeat(32), symbol: 'R' }).name).toBe('🚀'.repeat(32));
  });
});

describe('token states', () => {
  const token = newToken({
    tokenId: 'tok_1',
    network: 'eip155:84532',
    metadata: { name: 'A', symbol: 'A', description: null, imageUrl: null, thumbnailUrl: null, links: NO_LINKS },
    creator: '0x0000000000000000000000000000000000000001',
    params: DEFAULT_CURVE_PARAMS,
    address: '0x00000000000000000000000000000000000070c0',
    now: new Date(0),
  });

  it('starts ACTIVE and graduates only when the curve supply is sold out', () => {
    expect(token.state).toBe('ACTIVE');
    const partial = withCurve(token, quoteBuyWithUsd(token.params, token.curve, 1_000_000n).after, new Date(1));
    expect(partial.state).toBe('ACTIVE');
    const all = quoteBuyWithUsd(token.params, token.curve, maxBuyUsd(token.params, token.curve));
    const graduated = withCurve(token, all.after, new Date(2));
    expect(graduated.state).toBe('GRADUATED');
    expect(graduated.graduatedAt).toEqual(new Date(2));
  });

  it('a graduated token never trades again', () => {
    const all = quoteBuyWithUsd(token.params, token.curve, maxBuyUsd(token.params, token.curve));
    const graduated = withCurve(token, all.after, new Date(2));
    expect(() => withCurve(graduated, graduated.curve, new Date(3))).toThrow(TokenGraduated);
  });
});

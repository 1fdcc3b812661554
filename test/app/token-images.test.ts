/**
 * Token images through the catalogue's entrypoints, over memory stores and the fake processor:
 * refusals happen in `prepare` (before any 402), the create and token_image store what prepare
 * made, once per content, and name it on the service's origin.
 */
import { describe, expect, it } from 'vitest';
import { FakeImageProcessor } from '../../src/adapters/image/fake/fake-image-processor.js';
import { entrypoints } from '../../src/app/catalogue.js';
import { type AnyEntrypoint, type Caller } from '../../src/app/kit/catalogue/entrypoint.js';
import { ImageIntake } from '../../src/app/tokens/image-intake.js';
import { ImageReads } from '../../src/app/tokens/image-reads.js';
import { TESTNET } from '../../src/domain/network.js';
import { makeDeps, WALLET_A, WALLET_B } from '../support/app-harness.js';
import { bombPng, dataUrl, pngFixture, scanBombJpeg, SVG, TEXT_AS_PNG } from '../support/images.js';

const ORIGIN = 'https://launchpad.example';
const byName = (name: string): AnyEntrypoint => entrypoints().find((e) => e.name === name)!;
const creator: Caller = { wallet: WALLET_A, network: TESTNET };

function imageDeps() {
  const processor = new FakeImageProcessor();
  return { ...makeDeps(), images: new ImageIntake(processor, () => ORIGIN), processor };
}
type Deps = ReturnType<typeof imageDeps>;

/** What the payment pipeline does with an entrypoint, without the payment: parse, prepare as the payer, execute. */
async function call(deps: Deps, name: string, raw: unknown, caller = creator) {
  const e = byName(name);
  const input = e.parse(raw);
  const prepared = await e.prepare(deps, input, caller);
  return e.execute(deps, input, prepared, caller, undefined as never);
}

async function refusalOf(deps: Deps, name: string, raw: unknown, caller?: Caller): Promise<string> {
  const e = byName(name);
  try {
    await e.prepare(deps, e.parse(raw), caller, 'ask');
  } catch (e) {
    return (e as { code: string }).code;
  }
  return 'taken';
}

describe('token images (app)', () => {
  it('a create with an image names the service’s own copies; the same bytes twice are stored once', async () => {
    const deps = imageDeps();
    const png = await pngFixture(64, 64);
    const first = await call(deps, 'token_create', { name: 'Pic', symbol: 'PIC', image: dataUrl(png) });
    expect(first.imageUrl).toMatch(new RegExp(`^${ORIGIN}/images/[0-9a-f]{64}\\.webp$`));
    expect(first.thumbnailUrl).toMatch(new RegExp(`^${ORIGIN}/images/[0-9a-f]{64}\\.webp$`));
    expect(deps.uow.db.images.size).toBe(2);
    const second = await call(deps, 'token_create', { name: 'Pic two', symbol: 'PIC2', image: png.toString('base64') });
    expect(second.imageUrl).toBe(first.imageUrl);
    expect(deps.uow.db.images.size).toBe(2);
    const sha = first.imageUrl.split('/').pop().split('.')[0];
    expect((await new ImageReads(deps.uow).get(sha))?.contentType).toBe('image/webp');
  });

  it('prepare decodes an upload once however often a paid call checks it (the 402, the payment, the claim)', async () => {
    const deps = imageDeps();
    const e = byName('token_create');
    const input = e.parse({ name: 'Pic', symbol: 'PIC', image: dataUrl(await pngFixture(32, 32)) });
    for (const phase of ['ask', 'price', undefined] as const) await e.prepare(deps, input, creator, phase);
    expect(deps.processor.renders).toBe(1);
  });

  it.each([
    ['an SVG', async () => SVG, 'IMAGE_SVG_REFUSED'],
    ['a text file named .png', async () => TEXT_AS_PNG, 'IMAGE_TYPE_UNSUPPORTED'],
    ['a decompression bomb', () => bombPng(), 'IMAGE_TOO_MANY_PIXELS'],
    ['1 MiB and a byte', async () => Buffer.concat([await pngFixture(8, 8), Buffer.alloc(1024 * 1024)]), 'IMAGE_TOO_LARGE'],
    // Issue 51: a side over 4096 although the product is 4096²; the scan bomb, counted before any decode; SVGs the first KiB did not tell.
    ['a 1,048,576 × 16 strip', () => bombPng(1_048_576, 16), 'IMAGE_TOO_MANY_PIXELS'],
    ['the scan-bomb JPEG', async () => scanBombJpeg(), 'IMAGE_TOO_COMPLEX'],
    ['an SVG after 2 KiB of comment', async () => Buffer.from(`<!--${'x'.repeat(2048)}-->${SVG.toString()}`), 'IMAGE_SVG_REFUSED'],
    ['an SVG in UTF-16', async () => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(SVG.toString(), 'utf16le')]), 'IMAGE_SVG_REFUSED'],
  ])('%s is refused before the 402 (%s), nothing stored', async (_name, make, code) => {
    const deps = imageDeps();
    expect(await refusalOf(deps, 'token_create', { name: 'Bad', symbol: 'BAD', image: dataUrl(Buffer.from(await make())) })).toBe(code);
    expect(deps.uow.db.tokens.size + deps.uow.db.images.size).toBe(0);
    expect(deps.processor.renders).toBe(0);
  });

  it('an image and an imageUrl at once is a VALIDATION_ERROR', async () => {
    const deps = imageDeps();
    const png = await pngFixture(8, 8);
    expect(await refusalOf(deps, 'token_create', { name: 'A', symbol: 'A', image: dataUrl(png), imageUrl: 'https://e.com/a.png' })).toBe('VALIDATION_ERROR');
  });

  it('token_image: only the creator, refused before the 402 for anyone else; the change is an event and the token shows it', async () => {
    const deps = imageDeps();
    const token = await call(deps, 'token_create', { name: 'Pic', symbol: 'PIC', image: dataUrl(await pngFixture(16, 16)) });
    const image = dataUrl(await pngFixture(48, 24));
    expect(await refusalOf(deps, 'token_image', { tokenId: token.tokenId, image }, { wallet: WALLET_B, network: TESTNET })).toBe('NOT_TOKEN_CREATOR');
    // Asked without a wallet, the payer is checked when it pays (admission prepares as the payer).
    expect(await refusalOf(deps, 'token_image', { tokenId: token.tokenId, image })).toBe('taken');
    await expect(call(deps, 'token_image', { tokenId: token.tokenId, image }, { wallet: WALLET_B, network: TESTNET })).rejects.toMatchObject({ code: 'NOT_TOKEN_CREATOR' });
    const changed = await call(deps, 'token_image', { tokenId: token.tokenId, image });
    expect(changed.imageUrl).not.toBe(token.imageUrl);
    expect(deps.uow.db.tokens.get(token.tokenId)).toMatchObject({ imageUrl: changed.imageUrl, thumbnailUrl: changed.thumbnailUrl });
    const event = deps.uow.db.events.find((e) => e.type === 'token.image_changed');
    expect(event?.data).toMatchObject({ tokenId: token.tokenId, imageUrl: changed.imageUrl, thumbnailUrl: changed.thumbnailUrl });
    expect(await refusalOf(deps, 'token_image', { tokenId: 'tok_01JD5X8W3K2M9N7P4Q6R8S0T2V', image })).toBe('TOKEN_NOT_FOUND');
  });
});

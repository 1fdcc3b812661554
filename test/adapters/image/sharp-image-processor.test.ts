/**
 * The image intake over the real sharp adapter, on files made in code: what is taken comes out as
 * WebP of the stated bounds without metadata; what is not is refused with its own code.
 */
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { SharpImageProcessor } from '../../../src/adapters/image/sharp/sharp-image-processor.js';
import { ImageIntake } from '../../../src/app/tokens/image-intake.js';
import { IMAGE_MAX_PIXELS } from '../../../src/domain/image.js';
import { bombPng, dataUrl, jpegFixture, noisePng, pngFixture, scanBombJpeg, SVG, TEXT_AS_PNG } from '../../support/images.js';

const processor = new SharpImageProcessor();
const intake = new ImageIntake(processor, () => 'https://launchpad.example');

async function refusal(upload: string): Promise<string> {
  try {
    await intake.prepare(upload);
  } catch (e) {
    return (e as { code: string }).code;
  }
  return 'taken';
}

describe('token images on sharp', () => {
  let png: Buffer;
  beforeAll(async () => {
    png = await pngFixture(640, 480);
  });

  it('a PNG becomes a WebP of at most 512 × 512 (aspect kept, transparency kept) and a 128 × 128 thumbnail', async () => {
    const { image, thumbnail } = await intake.prepare(png.toString('base64'));
    expect([image.width, image.height]).toEqual([512, 384]);
    expect([thumbnail.width, thumbnail.height]).toEqual([128, 128]);
    for (const out of [image, thumbnail]) {
      const meta = await sharp(out.bytes).metadata();
      expect(meta.format).toBe('webp');
      expect(out.contentType).toBe('image/webp');
      expect(out.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    expect((await sharp(image.bytes).metadata()).hasAlpha).toBe(true);
  });

  it('the same bytes give the same renditions (content addressing holds across processes)', async () => {
    const again = await new ImageIntake(new SharpImageProcessor(), () => 'x').prepare(dataUrl(png));
    const first = await intake.prepare(png.toString('base64'));
    expect(again.image.sha256).toBe(first.image.sha256);
    expect(again.thumbnail.sha256).toBe(first.thumbnail.sha256);
  });

  it("a JPEG's EXIF (camera, place) is gone; a small image is not enlarged", async () => {
    const jpeg = await jpegFixture(300, 200);
    expect((await sharp(jpeg).metadata()).exif).toBeDefined();
    const { image } = await intake.prepare(dataUrl(jpeg, 'image/jpeg'));
    const meta = await sharp(image.bytes).metadata();
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect([meta.width, meta.height]).toEqual([300, 200]);
    expect(Buffer.from(image.bytes).includes('LeakyCam')).toBe(false);
  });

  it('an animated GIF keeps its first frame only', async () => {
    const frame = (background: string) => sharp({ create: { width: 20, height: 20, channels: 3, background } }).png().toBuffer();
    const animated = await sharp([await frame('#fff'), await frame('#000')], { join: { animated: true } }).gif().toBuffer();
    expect((await sharp(animated).metadata()).pages).toBe(2);
    const { image } = await intake.prepare(animated.toString('base64'));
    const meta = await sharp(image.bytes).metadata();
    expect([meta.pages ?? 1, meta.width, meta.height]).toEqual([1, 20, 20]);
    // The first frame is the white one.
    const { data } = await sharp(image.bytes).raw().toBuffer({ resolveWithObject: true });
    expect(data[0]).toBeGreaterThan(240);
  });

  it.each([
    ['an SVG', () => SVG, 'IMAGE_SVG_REFUSED'],
    ['a text file renamed .png (declared image/png)', () => TEXT_AS_PNG, 'IMAGE_TYPE_UNSUPPORTED'],
    ['a 5 MB image', () => noisePng(1300, 1300), 'IMAGE_TOO_LARGE'],
    ['a decompression bomb: a tiny PNG declaring 20000 × 20000', () => bombPng(), 'IMAGE_TOO_MANY_PIXELS'],
    ['a PNG cut in half', async () => (await pngFixture(200, 200)).subarray(0, 400), 'IMAGE_UNREADABLE'],
  ])('%s is refused: %s', async (_name, make, code) => {
    const bytes = Buffer.from(await make());
    expect(await refusal(dataUrl(bytes, 'image/png'))).toBe(code);
  });

  it('the bomb is refused from its header, before a pixel is decoded; the decoder refuses it on its own too', async () => {
    const bomb = await bombPng();
    expect(bomb.length).toBeLessThan(200);
    expect(await processor.inspect(bomb)).toMatchObject({ format: 'png', width: 20_000, height: 20_000 });
    // A header that passed (a lying one): sharp's limitInputPixels stops the decode.
    await expect(processor.render(bomb, { maxPixels: IMAGE_MAX_PIXELS, size: 512, thumbnailSize: 128 })).rejects.toMatchObject({ code: 'IMAGE_TOO_MANY_PIXELS' });
  });

  // Issue 51: what costs more than an ordinary image is refused before it is decoded, and what is decoded is decoded once.
  const cpuSeconds = async (work: () => Promise<unknown>) => {
    const started = process.cpuUsage();
    await work().catch(() => undefined);
    const { user, system } = process.cpuUsage(started);
    return (user + system) / 1e6;
  };

  it('the scan-bomb JPEG (2,647 scans of end-of-block runs, 10 s of CPU a decode) is refused IMAGE_TOO_COMPLEX within a tenth of a second of CPU', async () => {
    const bomb = scanBombJpeg();
    expect(await processor.inspect(bomb)).toMatchObject({ format: 'jpeg', width: 4096, height: 4096 });
    expect(await refusal(dataUrl(bomb, 'image/jpeg'))).toBe('IMAGE_TOO_COMPLEX');
    expect(await cpuSeconds(() => intake.prepare(dataUrl(bomb, 'image/jpeg')))).toBeLessThan(0.1);
  });

  it('the image and its thumbnail come from one decode: rendering costs what one decode costs', async () => {
    // 64 scans over 4096 × 4096 (the most taken): a decode of about 0.2 s, most of it reading the scans.
    const heavy = scanBombJpeg(4096, { components: 1, coefficients: 21, bits: 2 });
    const request = { maxPixels: IMAGE_MAX_PIXELS, size: 512, thumbnailSize: 128 };
    const oneDecode = await cpuSeconds(() => sharp(heavy, { failOn: 'warning' }).resize(512, 512, { fit: 'inside' }).raw().toBuffer());
    const render = await cpuSeconds(async () => expect(await processor.render(heavy, request)).toMatchObject({ image: { width: 512, height: 512 }, thumbnail: { width: 128, height: 128 } }));
    expect(render / oneDecode).toBeLessThan(1.6); // two decodes cost twice
  });

  it('a 1,048,576 × 16 PNG (as many pixels as 4096², a side of a million) is refused IMAGE_TOO_MANY_PIXELS from its header', async () => {
    const strip = await sharp({ create: { width: 1_048_576, height: 16, channels: 3, background: '#08f' } }).png().toBuffer();
    expect(strip.length).toBeLessThan(1024 * 1024);
    expect(await refusal(dataUrl(strip))).toBe('IMAGE_TOO_MANY_PIXELS');
  });

  it('a 4096 × 16 strip (each side within 4096) keeps its aspect and gives a 128 × 128 thumbnail of its centre', async () => {
    const strip = await sharp({ create: { width: 4096, height: 16, channels: 3, background: '#08f' } }).png().toBuffer();
    let prepared!: Awaited<ReturnType<typeof intake.prepare>>;
    expect(await cpuSeconds(async () => (prepared = await intake.prepare(dataUrl(strip))))).toBeLessThan(0.5);
    expect([prepared.image.width, prepared.image.height]).toEqual([512, 2]);
    expect([prepared.thumbnail.width, prepared.thumbnail.height]).toEqual([128, 128]);
  });

  it('base64 that is not base64 is a VALIDATION_ERROR on `image`', async () => {
    expect(await refusal('data:image/png;base64,@@@not base64@@@')).toBe('VALIDATION_ERROR');
  });
});

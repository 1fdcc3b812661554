/**
 * What an upload is and what decoding it will cost, told from its bytes before any decoder sees
 * them (issue 51): a JPEG's scans and segments, a PNG's chunks, a GIF's or WebP's frames; each side
 * at most 4096; an SVG is an SVG however long its leading comment and in UTF-16 too.
 */
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { checkDecoded, checkUpload, sniffImage } from '../../src/domain/image.js';
import { countImageWork, IMAGE_MAX_FRAMES, JPEG_MAX_SCANS, JPEG_MAX_SEGMENTS, PNG_MAX_CHUNKS } from '../../src/domain/image-structure.js';
import { jpegFixture, pngFixture, scanBombJpeg } from '../support/images.js';

const codeOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return (e as { code: string }).code;
  }
  return 'taken';
};

/** A PNG chunk with its CRC. */
function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** `png` with `extra` text chunks before its IEND. */
function withTextChunks(png: Buffer, extra: number): Buffer {
  const iend = png.length - 12;
  return Buffer.concat([png.subarray(0, iend), ...Array.from({ length: extra }, () => chunk('tEXt', Buffer.from('k\0v'))), png.subarray(iend)]);
}

/** A GIF of `frames` 1 × 1 frames. */
function gifOfFrames(frames: number): Buffer {
  const head = Buffer.from('474946383961010001008000004c6971ffffff', 'hex');
  const frame = Buffer.from('21f90405000000002c00000000010001000002024c0100', 'hex');
  return Buffer.concat([head, ...Array<Buffer>(frames).fill(frame), Buffer.from([0x3b])]);
}

describe('the work an upload costs, counted before decoding', () => {
  it('the scan-bomb JPEG (2,647 scans, 4096 × 4096, each only end-of-block runs) is refused IMAGE_TOO_COMPLEX from its bytes alone', () => {
    const bomb = scanBombJpeg();
    expect(bomb.length).toBeLessThan(256 * 1024);
    const started = process.cpuUsage();
    let error: unknown;
    try {
      checkUpload(bomb);
    } catch (e) {
      error = e;
    }
    const cpu = process.cpuUsage(started);
    expect(error).toMatchObject({ code: 'IMAGE_TOO_COMPLEX', details: { format: 'jpeg', what: 'scans', count: 2646 + 3, max: JPEG_MAX_SCANS } });
    // Counting walks markers only: well under a tenth of a second for 200 KB.
    expect((cpu.user + cpu.system) / 1e6).toBeLessThan(0.1);
  });

  it('ordinary JPEGs pass: baseline, progressive, mozjpeg’s optimised scans, with EXIF', async () => {
    const png = await pngFixture(640, 480);
    for (const options of [{}, { progressive: true }, { progressive: true, optimiseScans: true }, { progressive: true, chromaSubsampling: '4:4:4' }]) {
      const jpeg = await sharp(png).jpeg(options).toBuffer();
      const work = countImageWork('jpeg', jpeg);
      expect(work.scans, JSON.stringify(options)).toBeLessThanOrEqual(20);
      expect(work.segments).toBeLessThan(40);
      expect(checkUpload(jpeg)).toBe('jpeg');
    }
    // The EXIF's embedded bytes are inside its segment: not counted as markers.
    expect(countImageWork('jpeg', await jpegFixture(300, 200)).scans).toBe(3);
  });

  it('a JPEG is refused from its 65th scan (counted per component) and its 513th segment', () => {
    // One component: a DC scan, then `coefficients` × (bits + 1) AC scans.
    const atLimit = scanBombJpeg(64, { components: 1, coefficients: 21, bits: 2 });
    expect(countImageWork('jpeg', atLimit).scans).toBe(JPEG_MAX_SCANS);
    expect(codeOf(() => checkUpload(atLimit))).toBe('taken');
    expect(codeOf(() => checkUpload(scanBombJpeg(64, { components: 1, coefficients: 16, bits: 3 })))).toBe('IMAGE_TOO_COMPLEX');
    // A DC scan of three components counts three: 3 + 3 × 1 × 21 = 66.
    expect(countImageWork('jpeg', scanBombJpeg(64, { coefficients: 1, bits: 20 })).scans).toBe(66);
    // Segments: comments inserted after SOI.
    const plain = scanBombJpeg(64, { coefficients: 1, bits: 0 });
    const comments = (n: number) => Buffer.concat([plain.subarray(0, 2), ...Array.from({ length: n }, () => Buffer.from([0xff, 0xfe, 0, 3, 0x20])), plain.subarray(2)]);
    const segmentsOf = (b: Buffer) => countImageWork('jpeg', b).segments!;
    expect(segmentsOf(comments(10)) - segmentsOf(plain)).toBe(10);
    expect(codeOf(() => checkUpload(comments(JPEG_MAX_SEGMENTS - segmentsOf(plain))))).toBe('taken');
    expect(codeOf(() => checkUpload(comments(JPEG_MAX_SEGMENTS - segmentsOf(plain) + 1)))).toBe('IMAGE_TOO_COMPLEX');
  });

  it('a PNG is refused past 8192 chunks (one a row of 4096 rows is taken); a GIF or WebP past 1024 frames', async () => {
    const png = await pngFixture(16, 16);
    const chunks = countImageWork('png', png).chunks!;
    expect(codeOf(() => checkUpload(withTextChunks(png, PNG_MAX_CHUNKS - chunks)))).toBe('taken');
    expect(codeOf(() => checkUpload(withTextChunks(png, PNG_MAX_CHUNKS - chunks + 1)))).toBe('IMAGE_TOO_COMPLEX');

    expect(countImageWork('gif', gifOfFrames(3)).frames).toBe(3);
    expect(codeOf(() => checkUpload(gifOfFrames(IMAGE_MAX_FRAMES)))).toBe('taken');
    expect(codeOf(() => checkUpload(gifOfFrames(IMAGE_MAX_FRAMES + 1)))).toBe('IMAGE_TOO_COMPLEX');

    const frame = (background: string) => sharp({ create: { width: 4, height: 4, channels: 3, background } }).png().toBuffer();
    const [white, black] = [await frame('#fff'), await frame('#000')];
    const animated = (n: number) => sharp(Array.from({ length: n }, (_, i) => (i % 2 ? white : black)), { join: { animated: true } }).webp({ effort: 0 }).toBuffer();
    expect(countImageWork('webp', await animated(3)).frames).toBe(3);
    const webpOf1024 = await animated(IMAGE_MAX_FRAMES);
    expect(countImageWork('webp', await sharp(png).webp().toBuffer()).frames).toBe(1);
    expect(codeOf(() => checkUpload(webpOf1024))).toBe('taken');
    await expect((async () => checkUpload(await animated(IMAGE_MAX_FRAMES + 1)))()).rejects.toMatchObject({ code: 'IMAGE_TOO_COMPLEX' });
  });
});

describe('the size an image may be', () => {
  it.each([
    [4096, 4096, 'taken'],
    [4096, 16, 'taken'],
    [1_048_576, 16, 'IMAGE_TOO_MANY_PIXELS'], // 4096² pixels in all, but a side of a million
    [16, 4097, 'IMAGE_TOO_MANY_PIXELS'],
    [20_000, 20_000, 'IMAGE_TOO_MANY_PIXELS'],
  ])('%i × %i: %s', (width, height, code) => {
    expect(codeOf(() => checkDecoded('png', { format: 'png', width, height }))).toBe(code);
  });
});

describe('an SVG is refused as an SVG however it is written', () => {
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>';
  const utf16be = (s: string) => Buffer.from(s, 'utf16le').swap16();
  it.each([
    ['plain', Buffer.from(svg)],
    ['after 4 KiB of comment', Buffer.from(`<?xml version="1.0"?>\n<!--${'x'.repeat(4096)}-->\n${svg}`)],
    ['after a doctype with an internal subset and a UTF-8 byte-order mark', Buffer.from(`\uFEFF<!DOCTYPE svg [ <!ENTITY e "${'y'.repeat(2000)}"> ]>\n${svg}`)],
    ['UTF-16 little-endian with its byte-order mark', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`<?xml version="1.0" encoding="UTF-16"?>${svg}`, 'utf16le')])],
    ['UTF-16 big-endian with its byte-order mark', Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be(`<?xml version="1.0" encoding="UTF-16"?>${svg}`)])],
    ['UTF-16 little-endian without a mark', Buffer.from(`<?xml version="1.0" encoding="UTF-16"?>${svg}`, 'utf16le')],
    ['UTF-16 big-endian without a mark, after a long comment', utf16be(`<!--${'z'.repeat(3000)}-->${svg}`)],
    ['a namespace prefix', Buffer.from(`<?xml version="1.0"?><s:svg xmlns:s="http://www.w3.org/2000/svg"/>`)],
  ])('%s', (_name, bytes) => {
    expect(sniffImage(bytes)).toBe('svg');
    expect(codeOf(() => checkUpload(bytes))).toBe('IMAGE_SVG_REFUSED');
  });
  it('text that is no SVG stays IMAGE_TYPE_UNSUPPORTED', () => {
    for (const text of ['hello <svg> world', '<html><body>no picture</body></html>', '<!-- svg -->']) {
      expect(codeOf(() => checkUpload(Buffer.from(text)))).toBe('IMAGE_TYPE_UNSUPPORTED');
    }
  });
});

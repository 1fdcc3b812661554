/** Image fixtures made in code with sharp: real files of every kind an upload test needs. */
import { crc32 } from 'node:zlib';
import sharp from 'sharp';

/** A PNG of `width` × `height`: a gradient with a transparent corner, so encoders have something to keep. */
export async function pngFixture(width = 640, height = 480): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      pixels[i] = (x * 255) / width;
      pixels[i + 1] = (y * 255) / height;
      pixels[i + 2] = 128;
      pixels[i + 3] = x < width / 8 && y < height / 8 ? 0 : 255;
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 4 } }).png().toBuffer();
}

/** A JPEG with EXIF metadata (a camera's make and a GPS-like comment) the service must strip. */
export async function jpegFixture(width = 800, height = 600): Promise<Buffer> {
  return sharp(await pngFixture(width, height))
    .jpeg({ quality: 90 })
    .withExif({ IFD0: { Make: 'LeakyCam', Model: 'Where I Live 52.37N 4.89E' } })
    .toBuffer();
}

/** Noise: incompressible, so a PNG of it is about 3 bytes a pixel (5 MB at 1300 × 1300). */
export async function noisePng(width: number, height: number): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  let seed = 42;
  for (let i = 0; i < pixels.length; i++) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    pixels[i] = seed >>> 24;
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
}

/** A few hundred bytes declaring `width` × `height`: a 1 × 1 PNG whose header is rewritten (its CRC made right). */
export async function bombPng(width = 20_000, height = 20_000): Promise<Buffer> {
  const png = Buffer.from(await sharp({ create: { width: 1, height: 1, channels: 3, background: '#000' } }).png().toBuffer());
  // IHDR: length (4) at 8, type at 12, data (13) at 16: width, height; CRC over type + data at 29.
  png.writeUInt32BE(width, 16);
  png.writeUInt32BE(height, 20);
  png.writeUInt32BE(crc32(png.subarray(12, 29)), 29);
  return png;
}

export const SVG = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script><rect width="10" height="10"/></svg>');
/** A text file someone renamed `logo.png`. */
export const TEXT_AS_PNG = Buffer.from('this is not an image, whatever its name says\n');

export const dataUrl = (bytes: Buffer, type = 'image/png') => `data:${type};base64,${bytes.toString('base64')}`;

/**
 * A progressive JPEG that costs seconds to decode in a few hundred KB (issue 51): `size` × `size`,
 * three components, a DC scan and then, for every component and every AC coefficient, the longest
 * legal chain of scans (a first scan at bit 13, refinements down to bit 0) — 3 × 63 × 14 + 1 =
 * 2,647 scans, each only end-of-block runs. A decoder walks every block of the image once per scan.
 */
export function scanBombJpeg(size = 4096, options: { components?: number; coefficients?: number; bits?: number } = {}): Buffer {
  const components = options.components ?? 3;
  const coefficients = options.coefficients ?? 63;
  const bits = options.bits ?? 13;
  const out: number[] = [];
  const segment = (marker: number, body: number[]) => out.push(0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 0xff, ...body);
  out.push(0xff, 0xd8);
  segment(0xdb, [0x00, ...Array<number>(64).fill(1)]); // DQT 0: all ones
  const sof = [8, size >> 8, size & 0xff, size >> 8, size & 0xff, components];
  for (let c = 0; c < components; c++) sof.push(c + 1, 0x11, 0);
  segment(0xc2, sof); // SOF2: progressive
  // DC table 0: one code, "0", for category 0 (no change). AC table 0: 4-bit codes for EOB runs r = 0..14.
  segment(0xc4, [0x00, 1, ...Array<number>(15).fill(0), 0x00]);
  segment(0xc4, [0x10, 0, 0, 0, 15, ...Array<number>(12).fill(0), ...Array.from({ length: 15 }, (_, r) => r << 4)]);
  const blocks = Math.ceil(size / 8) ** 2;
  const scan = (header: number[], write: (w: BitWriter) => void) => {
    segment(0xda, header);
    const w = new BitWriter();
    write(w);
    out.push(...w.flush());
  };
  // The DC scan, interleaved: one 1-bit code a block.
  const dcHeader = [components];
  for (let c = 0; c < components; c++) dcHeader.push(c + 1, 0x00);
  scan([...dcHeader, 0, 0, 0x00], (w) => {
    for (let i = 0; i < blocks * components; i++) w.bits(0, 1);
  });
  for (let c = 0; c < components; c++) {
    for (let k = 1; k <= coefficients; k++) {
      for (let al = bits; al >= 0; al--) {
        const ah = al === bits ? 0 : al + 1;
        scan([1, c + 1, 0x00, k, k, (ah << 4) | al], (w) => {
          for (let left = blocks; left > 0; ) {
            const run = Math.min(left, 32767);
            const r = 31 - Math.clz32(run);
            w.bits(r, 4); // the code of symbol r<<4 is r itself (4-bit codes in symbol order)
            w.bits(run - (1 << r), r);
            left -= run;
          }
        });
      }
    }
  }
  out.push(0xff, 0xd9);
  return Buffer.from(out);
}

class BitWriter {
  private readonly bytes: number[] = [];
  private acc = 0;
  private n = 0;
  bits(value: number, count: number): void {
    for (let i = count - 1; i >= 0; i--) {
      this.acc = (this.acc << 1) | ((value >> i) & 1);
      if (++this.n === 8) this.emit();
    }
  }
  flush(): number[] {
    while (this.n !== 0) this.bits(1, 1);
    return this.bytes;
  }
  private emit(): void {
    this.bytes.push(this.acc);
    if (this.acc === 0xff) this.bytes.push(0x00);
    this.acc = 0;
    this.n = 0;
  }
}

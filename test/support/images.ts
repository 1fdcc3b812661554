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

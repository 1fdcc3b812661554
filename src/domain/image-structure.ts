/**
 * What decoding an upload will cost, counted from its bytes before a decoder sees them (issue 51,
 * decision 0064). Bytes and pixels bound memory, not work: a progressive JPEG is decoded once per
 * scan over every block of the image, so 186 KB of 2,647 scans, each only end-of-block runs, cost
 * 10 s of CPU per decode where an ordinary 4096 × 4096 photo costs 0.1 s. The walk reads only
 * markers, chunk and block headers — a few milliseconds for 1 MiB — the way the decoders find
 * them, and stops where they stop (a JPEG's EOI, a PNG's IEND, a GIF's trailer).
 */
import { ImageTooComplex } from './errors.js';

/** The formats taken (src/domain/image.ts tells them by their first bytes). */
export type ImageFormat = 'png' | 'jpeg' | 'webp' | 'gif';

/**
 * A JPEG's scans, a scan of n components counted n times (each is one pass over that component's
 * blocks). libjpeg's own progressive JPEG has 10 (CMYK 18), mozjpeg's 7–9; the legal maximum,
 * which only a bomb reaches, is 2,647 scans (2,649 counted so). 64 of them on a 4096 × 4096
 * image cost about 0.3 s.
 */
export const JPEG_MAX_SCANS = 64;
/** A JPEG's marker segments of any kind (tables, metadata, scans): an ordinary one has a dozen or two. */
export const JPEG_MAX_SEGMENTS = 512;
/** A PNG's chunks: encoders write 8–64 KiB of pixels a chunk, so 1 MiB is at most a few hundred; a streaming encoder writing a chunk a row writes one per row of up to 4096 (and a few more). */
export const PNG_MAX_CHUNKS = 8192;
/** Frames of an animated GIF, WebP or PNG: only the first is decoded, but each is read. */
export const IMAGE_MAX_FRAMES = 1024;

/** The counts, for the refusal's details and the tests. */
export interface ImageWork {
  /** JPEG: scans, counted per component. */
  scans?: number;
  /** JPEG: marker segments. */
  segments?: number;
  /** PNG: chunks. */
  chunks?: number;
  frames: number;
}

/** Counts what decoding `bytes` will walk through; a walk that meets something it does not know stops there (the decoder judges the rest). */
export function countImageWork(format: ImageFormat, bytes: Uint8Array): ImageWork {
  switch (format) {
    case 'jpeg':
      return jpegWork(bytes);
    case 'png':
      return pngWork(bytes);
    case 'gif':
      return { frames: gifFrames(bytes) };
    case 'webp':
      return { frames: webpFrames(bytes) };
  }
}

/** Refuses, with IMAGE_TOO_COMPLEX, an upload whose decoding would walk more than an ordinary image's. */
export function checkImageWork(format: ImageFormat, bytes: Uint8Array): ImageWork {
  const work = countImageWork(format, bytes);
  const over = (what: string, count: number | undefined, max: number) => {
    if (count !== undefined && count > max) throw ImageTooComplex.counted(format, what, count, max);
  };
  over('scans', work.scans, JPEG_MAX_SCANS);
  over('segments', work.segments, JPEG_MAX_SEGMENTS);
  over('chunks', work.chunks, PNG_MAX_CHUNKS);
  over('frames', work.frames, IMAGE_MAX_FRAMES);
  return work;
}

const isRestart = (marker: number) => marker >= 0xd0 && marker <= 0xd7;

/**
 * libjpeg's way through a file: a marker is 0xFF (fill bytes may repeat it) then a code; bytes
 * between segments are skipped; a segment's length covers its header; a scan's entropy-coded data
 * runs to the next 0xFF that is neither stuffing (FF 00) nor a restart marker.
 */
function jpegWork(b: Uint8Array): ImageWork {
  let scans = 0;
  let segments = 0;
  let pos = 2; // after SOI
  while (pos < b.length) {
    while (pos < b.length && b[pos] !== 0xff) pos++;
    while (pos < b.length && b[pos] === 0xff) pos++;
    if (pos >= b.length) break;
    const marker = b[pos++]!;
    if (marker === 0xd9) break; // EOI: the decoder reads no further
    if (marker === 0x00 || marker === 0x01 || marker === 0xd8 || isRestart(marker)) continue; // no segment
    if (pos + 2 > b.length) break;
    segments++;
    const length = (b[pos]! << 8) | b[pos + 1]!;
    if (marker === 0xda) scans += Math.max(1, b[pos + 2] ?? 1);
    pos += Math.max(2, length);
    if (marker === 0xda) pos = endOfEntropyData(b, pos);
  }
  return { scans, segments, frames: 1 };
}

function endOfEntropyData(b: Uint8Array, from: number): number {
  let pos = from;
  while (pos < b.length) {
    if (b[pos] !== 0xff) {
      pos++;
      continue;
    }
    let next = pos + 1;
    while (next < b.length && b[next] === 0xff) next++;
    if (next >= b.length) return b.length;
    const code = b[next]!;
    if (code !== 0x00 && !isRestart(code)) return pos;
    pos = next + 1;
  }
  return pos;
}

/** Chunks to IEND: length (4), type (4), data, CRC (4). An APNG's frames are its fcTL chunks. */
function pngWork(b: Uint8Array): ImageWork {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let chunks = 0;
  let frames = 0;
  let pos = 8;
  while (pos + 8 <= b.length) {
    const length = view.getUint32(pos);
    const type = String.fromCharCode(b[pos + 4]!, b[pos + 5]!, b[pos + 6]!, b[pos + 7]!);
    chunks++;
    if (type === 'fcTL') frames++;
    if (type === 'IEND') break;
    pos += 12 + length;
  }
  return { chunks, frames: Math.max(1, frames) };
}

/** Blocks to the trailer: extensions and images, each followed by data sub-blocks; an image is a frame. */
function gifFrames(b: Uint8Array): number {
  const colourTable = (flags: number) => (flags & 0x80 ? 3 * 2 ** ((flags & 0x07) + 1) : 0);
  const subBlocks = (from: number) => {
    let pos = from;
    while (pos < b.length) {
      const size = b[pos++]!;
      if (size === 0) break;
      pos += size;
    }
    return pos;
  };
  let frames = 0;
  let pos = 13 + colourTable(b[10] ?? 0); // header (6), logical screen descriptor (7), global colour table
  while (pos < b.length) {
    const introducer = b[pos++]!;
    if (introducer === 0x21) {
      pos = subBlocks(pos + 1); // the label, then its sub-blocks
    } else if (introducer === 0x2c) {
      frames++;
      pos += 9; // position, size, flags
      pos += colourTable(b[pos - 1] ?? 0) + 1; // local colour table, LZW minimum code size
      pos = subBlocks(pos);
    } else {
      break; // the trailer (0x3B), or something the decoder stops at too
    }
  }
  return Math.max(1, frames);
}

/** RIFF chunks after `WEBP`: fourCC (4), size (4, little-endian), data padded to even; an animation's frames are its ANMF chunks. */
function webpFrames(b: Uint8Array): number {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let frames = 0;
  let pos = 12;
  while (pos + 8 <= b.length) {
    if (b[pos] === 0x41 && b[pos + 1] === 0x4e && b[pos + 2] === 0x4d && b[pos + 3] === 0x46) frames++; // ANMF
    const size = view.getUint32(pos + 4, true);
    pos += 8 + size + (size & 1);
  }
  return Math.max(1, frames);
}

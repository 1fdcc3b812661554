/**
 * Decodes an uploaded image and encodes what the service keeps of it (docs/api.md "Token images").
 * The adapter knows an image library; what is taken, and how large, is the caller's
 * (src/domain/image.ts): it asks for the header first, checks it, then asks for the renditions.
 */

/** What an image's header says, read without decoding its pixels. */
export interface ImageHeader {
  /** The decoder's name for the format: `png`, `jpeg`, `webp`, `gif`, or another it knows. */
  format: string;
  width: number;
  height: number;
  /** Frames (an animated GIF or WebP has more than one). */
  pages: number;
}

/** One re-encoded rendition. */
export interface EncodedImage {
  bytes: Uint8Array;
  contentType: string;
  width: number;
  height: number;
}

export interface RenditionRequest {
  /** Decoding refuses a frame of more pixels than this, whatever the header said (a lying header). */
  maxPixels: number;
  /** The image: fitted inside this square, aspect kept, never enlarged. */
  size: number;
  /** The thumbnail: this square, of the image's largest centred square (enlarged only up to this square). */
  thumbnailSize: number;
  /**
   * The decode's budget (default IMAGE_DECODE_BUDGET_SECONDS): past it the work is stopped where
   * the decoder can be stopped, and refused IMAGE_TOO_COMPLEX.
   */
  budgetSeconds?: number;
}

export interface ImageProcessor {
  /** The header; throws ImageUnreadable when the bytes are no image it can read. */
  inspect(bytes: Uint8Array): Promise<ImageHeader>;
  /**
   * The first frame, upright (EXIF orientation applied), without metadata (EXIF, XMP, ICC text,
   * comments), as the image and its thumbnail, both from one decode; throws ImageUnreadable,
   * ImageTooManyPixels or ImageTooComplex (the budget).
   */
  render(bytes: Uint8Array, request: RenditionRequest): Promise<{ image: EncodedImage; thumbnail: EncodedImage }>;
}

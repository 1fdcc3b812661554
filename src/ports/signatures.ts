/**
 * Who signed a message (EIP-191 personal_sign): the proof a wallet gives, without Sign-In-With-X,
 * that it asks to cancel its own order or pledge (docs/api.md "Orders", "Fair launches").
 */
export interface MessageSignatures {
  /**
   * The EIP-55 checksummed address whose signature of `message` `signature` is; null when
   * `signature` cannot be read as one. Never throws. A well-formed signature of another message
   * answers some other address (or null): never the signer's.
   */
  signerOf(message: string, signature: string): Promise<string | null>;
}

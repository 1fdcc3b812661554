import type { ChannelConfig } from '../domain/channel.js';
import type { Network } from '../domain/network.js';

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

/**
 * The x402 `batch-settlement` scheme's identities and signatures (docs/payments.md "Pay once, call
 * many"): a channel's id is the EIP-712 hash of its configuration under the batch-settlement
 * contract's domain on the network's chain, and a voucher is the payer authorizer's EIP-712
 * signature of (channel id, cumulative maximum).
 */
export interface VoucherSignatures {
  /** The channel id (0x + 64 hex, lower case) of `config` on `network`. */
  channelId(config: ChannelConfig, network: Network): string;
  /**
   * The EIP-55 checksummed address that signed the voucher; null when `signature` cannot be read
   * as one. Never throws. A signature of another channel or amount never names the signer.
   */
  voucherSigner(voucher: { channelId: string; maxClaimableAmount: bigint; signature: string }, network: Network): Promise<string | null>;
}

/**
 * VoucherSignatures without cryptography, for tests of the flow: a channel id is the sha256 of
 * its configuration and network; a voucher signature is `fake:<signer lower-case>:<channel id>:<max>`
 * (FakeVoucherSignatures.sign). Anything else names no signer.
 */
import { createHash } from 'node:crypto';
import { getAddress, isAddress } from 'viem';
import type { ChannelConfig } from '../../../domain/channel.js';
import type { Network } from '../../../domain/network.js';
import type { VoucherSignatures } from '../../../ports/signatures.js';

export class FakeVoucherSignatures implements VoucherSignatures {
  /** The signature the fake reads as `signer`'s voucher of `max` on `channelId`. */
  static sign(signer: string, channelId: string, max: bigint): string {
    return `fake:${signer.toLowerCase()}:${channelId.toLowerCase()}:${max}`;
  }

  channelId(config: ChannelConfig, network: Network): string {
    const fields = [config.payer, config.payerAuthorizer, config.receiver, config.receiverAuthorizer, config.token].map((a) => a.toLowerCase());
    const text = [...fields, String(config.withdrawDelay), config.salt.toLowerCase(), network].join('|');
    return `0x${createHash('sha256').update(text).digest('hex')}`;
  }

  async voucherSigner(voucher: { channelId: string; maxClaimableAmount: bigint; signature: string }): Promise<string | null> {
    const [scheme, signer, channelId, max, ...rest] = voucher.signature.split(':');
    if (scheme !== 'fake' || !signer || !isAddress(signer, { strict: false }) || rest.length > 0) return null;
    if (channelId !== voucher.channelId.toLowerCase() || max !== String(voucher.maxClaimableAmount)) return null;
    return getAddress(signer);
  }
}

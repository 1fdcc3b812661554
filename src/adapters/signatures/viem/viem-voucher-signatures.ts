/** VoucherSignatures by the official x402 code and viem (adapters/kit/x402/batch-settlement.ts). No key, no chain. */
import type { ChannelConfig } from '../../../domain/channel.js';
import type { Network } from '../../../domain/network.js';
import type { VoucherSignatures } from '../../../ports/signatures.js';
import { channelIdOf, voucherSignerOf } from '../../kit/x402/batch-settlement.js';

export class ViemVoucherSignatures implements VoucherSignatures {
  channelId(config: ChannelConfig, network: Network): string {
    return channelIdOf(config, network);
  }

  voucherSigner(voucher: { channelId: string; maxClaimableAmount: bigint; signature: string }, network: Network): Promise<string | null> {
    return voucherSignerOf(voucher, network);
  }
}

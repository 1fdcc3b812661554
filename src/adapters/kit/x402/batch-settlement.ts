/**
 * The x402 batch-settlement scheme's identities and signatures as the official code makes them:
 * the channel id as @x402/evm computes it, the voucher's EIP-712 signature recovered under the
 * batch-settlement contract's domain (docs/payments.md "Pay once, call many"). No key, no chain.
 */
import { computeChannelId } from '@x402/evm/batch-settlement/client';
import { getAddress, recoverTypedDataAddress, type Hex } from 'viem';
import type { ChannelConfig } from '../../../domain/channel.js';
import { NETWORKS, type Network } from '../../../domain/network.js';

/** The batch-settlement contract's address on every chain (@x402/evm's BATCH_SETTLEMENT_ADDRESS). */
export const BATCH_SETTLEMENT_CONTRACT = '0x4020074e9dF2ce1deE5A9C1b5c3f541D02a10003';

const VOUCHER_TYPES = {
  Voucher: [
    { name: 'channelId', type: 'bytes32' },
    { name: 'maxClaimableAmount', type: 'uint128' },
  ],
} as const;

/** The channel id (0x + 64 hex, lower case) of `config` on `network`. */
export function channelIdOf(config: ChannelConfig, network: Network): string {
  return computeChannelId(contractConfig(config), NETWORKS[network].chainId).toLowerCase();
}

/** The checksummed signer of a voucher; null when the signature cannot be read. Never throws. */
export async function voucherSignerOf(voucher: { channelId: string; maxClaimableAmount: bigint; signature: string }, network: Network): Promise<string | null> {
  try {
    const signer = await recoverTypedDataAddress({
      domain: { name: 'x402 Batch Settlement', version: '1', chainId: NETWORKS[network].chainId, verifyingContract: BATCH_SETTLEMENT_CONTRACT },
      types: VOUCHER_TYPES,
      primaryType: 'Voucher',
      message: { channelId: voucher.channelId as Hex, maxClaimableAmount: voucher.maxClaimableAmount },
      signature: voucher.signature as Hex,
    });
    return getAddress(signer);
  } catch {
    return null;
  }
}

function contractConfig(c: ChannelConfig): Parameters<typeof computeChannelId>[0] {
  return {
    payer: getAddress(c.payer),
    payerAuthorizer: getAddress(c.payerAuthorizer),
    receiver: getAddress(c.receiver),
    receiverAuthorizer: getAddress(c.receiverAuthorizer),
    token: getAddress(c.token),
    withdrawDelay: c.withdrawDelay,
    salt: c.salt as Hex,
  };
}

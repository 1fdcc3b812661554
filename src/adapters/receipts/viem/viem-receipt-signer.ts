/**
 * Offers and receipts signed with the service's key in the extension's EIP-712 format, produced
 * by @x402/extensions/offer-receipt's own resource-server extension (payloads, domains, types and
 * schemas are the package's); viem's account signs the typed data.
 */
import type { ResourceServerExtension } from '@x402/core/types';
import {
  createEIP712OfferReceiptIssuer,
  createOfferReceiptExtension,
  declareOfferReceiptExtension,
  OFFER_RECEIPT,
  type SignTypedDataFn,
} from '@x402/extensions/offer-receipt';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { PaymentRequirements } from '../../../ports/facilitator.js';
import type { OffersExtension, ReceiptExtension, ReceiptSigner } from '../../../ports/receipt-signer.js';

export interface ViemReceiptSignerOptions {
  /** The signing key (the treasury's by default in the composition root). */
  key: Hex;
  /** How long an offer holds; default: the requirement's maxTimeoutSeconds, as the extension does. */
  offerValiditySeconds?: number;
}

export class ViemReceiptSigner implements ReceiptSigner {
  readonly signer: string;
  private readonly extension: ResourceServerExtension;
  private readonly offerDeclaration: unknown;
  // The transaction hash is in PAYMENT-RESPONSE already; in the receipt it makes the receipt checkable on chain.
  private readonly receiptDeclaration = declareOfferReceiptExtension({ includeTxHash: true })[OFFER_RECEIPT];

  constructor(options: ViemReceiptSignerOptions) {
    const account = privateKeyToAccount(options.key);
    this.signer = account.address;
    const sign: SignTypedDataFn = (data) => account.signTypedData(data as Parameters<typeof account.signTypedData>[0]);
    this.extension = createOfferReceiptExtension(createEIP712OfferReceiptIssuer(`did:pkh:eip155:1:${account.address}`, sign));
    this.offerDeclaration = declareOfferReceiptExtension(
      options.offerValiditySeconds === undefined ? {} : { offerValiditySeconds: options.offerValiditySeconds },
    )[OFFER_RECEIPT];
  }

  async signOffers(resourceUrl: string, accepts: readonly PaymentRequirements[]): Promise<OffersExtension> {
    const context = {
      requirements: [...accepts],
      resourceInfo: { url: resourceUrl },
      paymentRequiredResponse: { x402Version: 2, resource: { url: resourceUrl }, accepts: [...accepts] },
    };
    const signed = await this.extension.enrichPaymentRequiredResponse!(this.offerDeclaration, context as never);
    if (!signed) throw new Error('the offers could not be signed');
    return signed as OffersExtension;
  }

  async signReceipt(receipt: { resourceUrl: string; payer: string; network: string; transaction: string }): Promise<ReceiptExtension> {
    const context = {
      result: { success: true, payer: receipt.payer, network: receipt.network, transaction: receipt.transaction },
      transportContext: { request: { adapter: { getUrl: () => receipt.resourceUrl } } },
    };
    const signed = await this.extension.enrichSettlementResponse!(this.receiptDeclaration, context as never);
    if (!signed) throw new Error('the receipt could not be signed');
    return signed as ReceiptExtension;
  }
}

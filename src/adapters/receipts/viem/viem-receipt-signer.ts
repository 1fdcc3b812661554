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
  /**
   * How long offers signed for one resource and one set of requirements are served again
   * (default 5 s, 0 to sign every 402 afresh). A 402 repeated within it — the same price on the
   * same resource — carries the same signed offers, each still valid for the rest of its
   * window (validUntil is at least the offer validity less this from now).
   */
  offerReuseMs?: number;
  /** Milliseconds now (tests). */
  now?: () => number;
}

const MAX_REUSED_OFFERS = 1_000;

export class ViemReceiptSigner implements ReceiptSigner {
  readonly signer: string;
  private readonly extension: ResourceServerExtension;
  private readonly offerDeclaration: unknown;
  // The transaction hash is in PAYMENT-RESPONSE already; in the receipt it makes the receipt checkable on chain.
  private readonly receiptDeclaration = declareOfferReceiptExtension({ includeTxHash: true })[OFFER_RECEIPT];
  /** Offers signed lately, by resource and requirements: signing is two secp256k1 signatures per 402 otherwise. */
  private readonly signedOffers = new Map<string, { at: number; offers: Promise<OffersExtension> }>();
  private readonly offerReuseMs: number;
  private readonly now: () => number;

  constructor(options: ViemReceiptSignerOptions) {
    const account = privateKeyToAccount(options.key);
    this.signer = account.address;
    const sign: SignTypedDataFn = (data) => account.signTypedData(data as Parameters<typeof account.signTypedData>[0]);
    this.extension = createOfferReceiptExtension(createEIP712OfferReceiptIssuer(`did:pkh:eip155:1:${account.address}`, sign));
    this.offerDeclaration = declareOfferReceiptExtension(
      options.offerValiditySeconds === undefined ? {} : { offerValiditySeconds: options.offerValiditySeconds },
    )[OFFER_RECEIPT];
    this.offerReuseMs = options.offerReuseMs ?? 5_000;
    this.now = options.now ?? Date.now;
  }

  signOffers(resourceUrl: string, accepts: readonly PaymentRequirements[]): Promise<OffersExtension> {
    if (this.offerReuseMs <= 0) return this.sign(resourceUrl, accepts);
    const key = `${resourceUrl}\n${JSON.stringify(accepts)}`;
    const now = this.now();
    const kept = this.signedOffers.get(key);
    if (kept && now - kept.at >= 0 && now - kept.at < this.offerReuseMs) return kept.offers;
    const offers = this.sign(resourceUrl, accepts);
    this.signedOffers.delete(key);
    if (this.signedOffers.size >= MAX_REUSED_OFFERS) this.signedOffers.delete(this.signedOffers.keys().next().value!);
    this.signedOffers.set(key, { at: now, offers });
    offers.catch(() => this.signedOffers.get(key)?.offers === offers && this.signedOffers.delete(key)); // a failure is not kept
    return offers;
  }

  private async sign(resourceUrl: string, accepts: readonly PaymentRequirements[]): Promise<OffersExtension> {
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

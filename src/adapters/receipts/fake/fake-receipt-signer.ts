/**
 * A ReceiptSigner without cryptography, for tests of the flow: the wire shapes of the EIP-712
 * format, times from the injected clock, and a "signature" `fake:<signer>:<sha256 of the
 * payload>` that `FakeReceiptSigner.recover` checks.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../../ports/clock.js';
import type { PaymentRequirements } from '../../../ports/facilitator.js';
import type { OfferPayload, OffersExtension, ReceiptExtension, ReceiptPayload, ReceiptSigner } from '../../../ports/receipt-signer.js';

const digest = (payload: object) =>
  createHash('sha256')
    .update(JSON.stringify(payload, Object.keys(payload).sort()))
    .digest('hex');

export class FakeReceiptSigner implements ReceiptSigner {
  constructor(
    private readonly clock: Clock,
    readonly signer = '0x000000000000000000000000000000000000fA4e',
  ) {}

  /** The signer of a fake-signed offer or receipt, or null when it does not match its payload. */
  static recover(signed: { payload?: object; signature: string }): string | null {
    const [scheme, signer, hash] = signed.signature.split(':');
    return scheme === 'fake' && signed.payload && hash === digest(signed.payload) ? (signer ?? null) : null;
  }

  private sign(payload: object): string {
    return `fake:${this.signer}:${digest(payload)}`;
  }

  async signOffers(resourceUrl: string, accepts: readonly PaymentRequirements[]): Promise<OffersExtension> {
    const now = Math.floor(this.clock.now().getTime() / 1000);
    const offers = accepts.map((r, acceptIndex) => {
      const payload: OfferPayload = {
        version: 1,
        resourceUrl,
        scheme: r.scheme,
        network: r.network,
        asset: r.asset,
        payTo: r.payTo,
        amount: r.amount,
        validUntil: now + r.maxTimeoutSeconds,
      };
      return { format: 'eip712' as const, acceptIndex, payload, signature: this.sign(payload) };
    });
    return { info: { offers }, schema: { type: 'object' } };
  }

  async signReceipt(r: { resourceUrl: string; payer: string; network: string; transaction: string }): Promise<ReceiptExtension> {
    const payload: ReceiptPayload = {
      version: 1,
      network: r.network,
      resourceUrl: r.resourceUrl,
      payer: r.payer,
      issuedAt: Math.floor(this.clock.now().getTime() / 1000),
      transaction: r.transaction,
    };
    return { info: { receipt: { format: 'eip712', payload, signature: this.sign(payload) } }, schema: { type: 'object' } };
  }
}

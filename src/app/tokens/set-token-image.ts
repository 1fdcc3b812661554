/**
 * POST /entrypoints/token_image (docs/api.md "Token images"): a token's creator gives it a new
 * image. Only the creator: the payer must be the wallet that created the token, checked before
 * the payment is asked for and again as it is applied.
 */
import { NotTokenCreator, ValidationError } from '../../domain/errors.js';
import type { Network } from '../../domain/network.js';
import type { Token } from '../../domain/token.js';
import type { Stores } from '../../ports/unit-of-work.js';
import type { AppDeps, TokenImages } from '../kit/deps.js';
import type { PreparedImage } from './image-intake.js';
import { applyInUnitOfWork, type Paid } from '../kit/paid.js';
import { loadToken } from '../trading/index.js';
import { loadTokenView, type TokenView } from '../kit/views.js';

/** The creator's own check: anyone else is refused (NOT_TOKEN_CREATOR, 403). */
export function checkCreator(token: Token, wallet: string): void {
  if (token.creator.toLowerCase() !== wallet.toLowerCase()) throw new NotTokenCreator(token.tokenId, wallet);
}

/** The intake, or the refusal of a service that takes no uploads. */
export function imageIntake(deps: Pick<AppDeps, 'images'>): TokenImages {
  if (!deps.images) throw ValidationError.of('image', 'uploads are not taken by this service');
  return deps.images;
}

/**
 * Before the payment: the token exists, the caller (when known: the wallet named, then the payer)
 * created it, and the upload is an image the service takes. Answers the token's network, the only
 * one the change can be paid on, and the re-encoded image.
 */
export async function checkTokenImage(deps: Pick<AppDeps, 'uow' | 'images'>, input: { tokenId: string; image: string }, wallet: string | undefined): Promise<{ network: Network; image: PreparedImage }> {
  const token = await deps.uow.run((stores: Stores) => loadToken(stores, input.tokenId));
  if (wallet !== undefined) checkCreator(token, wallet);
  return { network: token.network, image: await imageIntake(deps).prepare(input.image) };
}

/** Stores the image, names it on the token and tells the event stream, with the payment. */
export function setTokenImage(deps: Pick<AppDeps, 'uow' | 'clock' | 'images'>, cmd: { tokenId: string; image: PreparedImage; payer: string }, paid?: Paid<TokenView>): Promise<TokenView> {
  return applyInUnitOfWork(deps, paid, async (stores, now) => {
    const token = await loadToken(stores, cmd.tokenId, true);
    checkCreator(token, cmd.payer);
    const urls = await imageIntake(deps).store(stores, cmd.image, now);
    await stores.tokens.setImage(token.tokenId, urls);
    await stores.events.append({
      type: 'token.image_changed',
      network: token.network,
      tokenId: token.tokenId,
      data: { tokenId: token.tokenId, ...urls, paymentId: paid?.payment.paymentId ?? null },
      createdAt: now,
    });
    return loadTokenView(stores, { ...token, ...urls }, now);
  });
}

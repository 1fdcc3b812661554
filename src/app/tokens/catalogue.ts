/**
 * A token's entries of the catalogue (docs/api.md "Paid endpoints", "Token images", "Free endpoints"): creating one, its analytics and its image (paid); the reads of tokens, trades, candles, holders and the service's stats.
 */
import { checksummed } from '../kit/address.js';
import { z } from 'zod';
import { ValidationError } from '../../domain/errors.js';
import { parseUsd } from '../../domain/money.js';
import type { CreatorSplit, FeeMode } from '../../domain/fees.js';
import type { FairLaunchTerms } from '../../domain/raise.js';
import type { VestingTerms } from '../../domain/vesting.js';
import { type TokenMetadata, validateTokenMetadata } from '../../domain/token.js';
import { type Entrypoint, type Prepared, fixed, opt } from '../kit/catalogue/entrypoint.js';
import { read } from '../kit/catalogue/operation.js';
import { token, tokenField } from '../kit/catalogue/read-fields.js';
import { IMAGE_BODY_LIMIT_BYTES, type PreparedImage } from './image-intake.js';
import { tokenOutput } from '../kit/output-schemas.js';
import { applyInUnitOfWork } from '../kit/paid.js';
import { parseWith, tokenIdSchema } from '../kit/schemas.js';
import { checkReferrer, loadToken } from '../trading/index.js';
import { checkSplitWallets, parseCreatorSplits, setCreatorSplits } from './creator-splits.js';
import { checkCreatorTerms, checkFairLaunch, checkInitialBuy, createToken } from './create-token.js';
import { getCandles } from './get-candles.js';
import { getStats } from './get-stats.js';
import { getToken, keptToken } from './get-token.js';
import { listHolders } from './list-holders.js';
import { listTokens } from './list-tokens.js';
import { listTrades } from './list-trades.js';
import { candlesOutput, candlesQuery, createTokenInput, creatorSplitsInput, createTokenOutput, holdersOutput, holdersQuery, listTokensQuery, statsOutput, tokenImageInput, tokenInfoInput, tokenInfoOutput, tokenPageOutput, tradePageOutput, tradesQuery } from './schemas.js';
import { checkTokenImage, imageIntake, setTokenImage } from './set-token-image.js';
import { tokenInfoFrom } from './token-info.js';
import { TOKEN_EXAMPLES } from './examples.js';

type CreateInput = TokenMetadata & {
  platformReferrer: string | null;
  initialBuyUsd: bigint | null;
  image: string | null;
  fairLaunch: FairLaunchTerms | null;
  feeMode: FeeMode;
  creatorSplits: CreatorSplit[] | null;
  vesting: VestingTerms | null;
};

/** An upload is checked and re-encoded before the 402 (decision 0049): what execute stores. */
type WithImage = Prepared & { image: PreparedImage | null };

/** token_image: a creator's new image for its token (docs/api.md "Token images"), checked before the 402. */
function imageEntrypoint(): Entrypoint<{ tokenId: string; image: string }, Prepared & { image: PreparedImage }> {
  return {
    kind: 'paid',
    name: 'token_image',
    example: TOKEN_EXAMPLES.token_image,
    operation: 'set_token_image',
    description:
      "Give a token a new image (only its creator: the payer must be the wallet that created it). The image is checked by its bytes (PNG, JPEG, WebP or GIF, at most 1 MiB; SVG refused) before any payment, and kept as WebP with a thumbnail at the token's imageUrl and thumbnailUrl.",
    tool: { name: 'set_token_image', title: "Change a token's image", readOnly: false },
    ...fixed((settings) => settings.prices.image),
    successStatus: 200,
    bodyLimit: IMAGE_BODY_LIMIT_BYTES,
    errors: [422], // an image too complex to decode (IMAGE_TOO_COMPLEX)
    inputSchema: tokenImageInput,
    outputSchema: tokenOutput,
    parse: (raw) => parseWith(tokenImageInput, raw),
    async prepare(deps, input, caller) {
      const checked = await checkTokenImage(deps, input, caller?.wallet);
      return { amount: deps.settings.prices.image, network: checked.network, image: checked.image };
    },
    execute: (deps, input, prepared, caller, paid) => setTokenImage(deps, { tokenId: input.tokenId, image: prepared.image, payer: caller.wallet }, paid),
  };
}

/** The paid entries of this room, by name (the assembly in ../catalogue.ts orders them). */
export function tokenEntrypoints() {
  const create: Entrypoint<CreateInput, WithImage> = {
    kind: 'paid',
    name: 'token_create',
    example: TOKEN_EXAMPLES.token_create,
    operation: 'create_token',
    description: 'Create a token on the bonding curve; the payer is its creator and its network is the payment network.',
    tool: { name: 'create_token', title: 'Create a token', readOnly: false },
    alsoAt: '/tokens',
    ...fixed((settings) => settings.prices.create),
    successStatus: 201,
    bodyLimit: IMAGE_BODY_LIMIT_BYTES,
    errors: [422], // an image too complex to decode (IMAGE_TOO_COMPLEX)
    inputSchema: createTokenInput,
    outputSchema: createTokenOutput,
    parse: (raw) => {
      const input = parseWith(createTokenInput, raw);
      if (input.image !== undefined && input.imageUrl !== undefined) throw ValidationError.of('image', 'give an image or an imageUrl, not both');
      return {
        ...validateTokenMetadata(input),
        platformReferrer: input.platformReferrer ? checksummed(input.platformReferrer) : null,
        initialBuyUsd: opt(input.initialBuyUsd, parseUsd) ?? null,
        image: input.image ?? null,
        fairLaunch: input.launch
          ? { goalUsd: parseUsd(input.launch.goalUsd), durationSeconds: input.launch.durationSeconds, maxPerWalletUsd: opt(input.launch.maxPerWalletUsd, parseUsd) ?? null }
          : null,
        feeMode: input.feeMode ?? 'creator',
        creatorSplits: input.creatorSplits ? parseCreatorSplits(input.creatorSplits) : null,
        vesting: input.vesting ?? null,
      };
    },
    // With a dev buy the price is the create's plus the buy, checked on the fresh curve first.
    async prepare(deps, input) {
      checkCreatorTerms(input);
      if (input.fairLaunch) checkFairLaunch(deps, input.fairLaunch, input.initialBuyUsd);
      if (input.initialBuyUsd) checkInitialBuy(deps, input.initialBuyUsd);
      await checkReferrer(deps, 'platformReferrer', input.platformReferrer);
      await checkSplitWallets(deps, input.creatorSplits);
      const image = input.image === null ? null : await imageIntake(deps).prepare(input.image);
      return { amount: deps.settings.prices.create + (input.initialBuyUsd ?? 0n), network: null, image };
    },
    execute: (deps, { platformReferrer, initialBuyUsd, fairLaunch, feeMode, creatorSplits, vesting, image: _upload, ...metadata }, prepared, caller, paid) =>
      createToken(deps, { metadata, creator: caller.wallet, platformReferrer, initialBuyUsd, fairLaunch, feeMode, creatorSplits, vesting, network: caller.network, image: prepared.image }, paid),
  };
  const info: Entrypoint<{ tokenId: string }> = {
    kind: 'paid',
    name: 'token_info',
    example: TOKEN_EXAMPLES.token_info,
    operation: 'token_info',
    description: 'The token plus top holders, 24-hour volume, price change, trades and hourly candles.',
    tool: { name: 'token_info', title: 'Token analytics', readOnly: true },
    ...fixed((settings) => settings.prices.info),
    successStatus: 200,
    inputSchema: tokenInfoInput,
    outputSchema: tokenInfoOutput,
    parse: (raw) => parseWith(tokenInfoInput, raw),
    // Information is not network-bound: any wallet may pay on its own network.
    async prepare(deps, input) {
      await deps.uow.run((stores) => loadToken(stores, input.tokenId));
      return { amount: deps.settings.prices.info, network: null };
    },
    execute: (deps, input, _p, _caller, paid) =>
      applyInUnitOfWork(deps, paid, (stores, now) => tokenInfoFrom(stores, input.tokenId, now)),
    // Bought once, the information of every token is free to the same wallet for a while.
    grantsAccess: { serve: (deps, input) => applyInUnitOfWork(deps, undefined, (stores, now) => tokenInfoFrom(stores, input.tokenId, now)) },
  };
  return { create, info, image: imageEntrypoint() };
}

/** The free reads of this room, by operation (the assembly in ../catalogue.ts orders them). */
export function tokenReads() {
  return {
    list_tokens: read({
      operation: 'list_tokens',
      tool: { name: 'list_tokens', title: 'List tokens' },
      description:
        'List launched tokens, newest first (or by marketCap / volume24h), filtered by network, state, creator or a name/symbol prefix `q`. Pages with `cursor` (the previous answer\'s nextCursor).',
      summary: 'tokens, newest first; filters network, state, creator, q; sort created | marketCap | volume24h; cursor pages',
      http: { path: '/tokens' },
      inputSchema: listTokensQuery,
      outputSchema: tokenPageOutput,
      run: (deps, q) => listTokens(deps, q),
    }),
    get_token: read({
      operation: 'get_token',
      tool: { name: 'get_token', title: 'Get a token' },
      description: 'One token: its curve, spot price (USD), market cap, 24-hour volume, holders, on-chain address and deployment, and pool once graduated.',
      summary: 'one token: curve, spot price, market cap, volume, holders, contract and pool',
      http: { path: '/tokens/:id', params: token },
      inputSchema: z.strictObject({ tokenId: tokenIdSchema }),
      outputSchema: tokenOutput,
      run: (deps, q, call) => getToken(deps, q.tokenId, { fresh: call.fresh ?? false }),
      kept: (deps, q) => keptToken(deps, q.tokenId),
    }),
    list_trades: read({
      operation: 'list_trades',
      tool: { name: 'list_trades', title: "List a token's trades" },
      description: "A token's trades, newest first: side, USD amount, fee, tokens, average price, venue (curve or uniswap-v2).",
      summary: 'trades, newest first',
      http: { path: '/api/tokens/:id/trades', params: token },
      inputSchema: tradesQuery.extend(tokenField),
      outputSchema: tradePageOutput,
      run: (deps, q) => listTrades(deps, q.tokenId, { limit: q.limit, cursor: q.cursor }),
    }),
    candles: read({
      operation: 'candles',
      tool: { name: 'get_candles', title: 'Price candles' },
      description: "OHLCV candles of a token's trades (interval 1m, 5m, 1h or 1d; default the last 100 intervals).",
      summary: 'OHLCV candles',
      http: { path: '/api/tokens/:id/candles', params: token },
      inputSchema: candlesQuery.extend(tokenField),
      outputSchema: candlesOutput,
      run: (deps, q) =>
        getCandles(deps, q.tokenId, { interval: q.interval, ...(q.from ? { from: new Date(q.from) } : {}), ...(q.to ? { to: new Date(q.to) } : {}) }),
    }),
    holders: read({
      operation: 'holders',
      tool: { name: 'list_holders', title: "List a token's holders" },
      description: "A token's top holders with their balance and share of the tokens in circulation.",
      summary: 'top holders',
      http: { path: '/api/tokens/:id/holders', params: token },
      inputSchema: holdersQuery.extend(tokenField),
      outputSchema: holdersOutput,
      run: (deps, q) => listHolders(deps, q.tokenId, q.limit),
    }),
    set_creator_splits: read({
      operation: 'set_creator_splits',
      description:
        "The token's creator changes the wallets its creator share (the creator's half of every trading fee) is split among, free: the request proves the creator's wallet with a SIGN-IN-WITH-X header. 1 to 10 wallets, bps adding up to 10000, no wallet twice, none of the service's own accounts or contracts; not on a cashback token. Applies to the trades after it; `token.splits_changed` goes on the event stream. Answers the token.",
      summary: "the token's creator changes its creator splits (SIGN-IN-WITH-X proof required)",
      http: { path: '/tokens/:id/splits', params: token, method: 'post', proofRequired: true, errors: [403] },
      inputSchema: creatorSplitsInput.extend(tokenField),
      outputSchema: tokenOutput,
      run: (deps, q, call) => setCreatorSplits(deps, { tokenId: q.tokenId, wallet: checksummed(call.provenWallet!), creatorSplits: q.creatorSplits }),
    }),
    stats: read({
      operation: 'stats',
      description: 'Totals per network: tokens, trades, volume and fees.',
      summary: 'totals per network',
      http: { path: '/api/stats' },
      inputSchema: z.strictObject({}),
      outputSchema: statsOutput,
      run: (deps) => getStats(deps),
    }),
  };
}

/** The API's resources as the page reads them (docs/api.md "Resources"); unknown fields are ignored. */
export interface Token {
  tokenId: string;
  network: string;
  name: string;
  symbol: string;
  description: string | null;
  imageUrl: string | null;
  creator: string;
  links: { website: string | null; twitter: string | null; telegram: string | null };
  state: 'ACTIVE' | 'GRADUATED';
  totalSupply: string;
  curve: { virtualUsdReserve?: string; virtualTokenReserve?: string; realUsdReserve: string; realTokenReserve: string; tokensSold: string; curveSupply: string; feeBps: number; progress: string };
  priceUsd: string;
  marketCapUsd: string;
  volumeUsd24h: string;
  trades24h: number;
  holders: number;
  creatorEarningsUsd: string;
  address: string | null;
  deployment: { state: 'PENDING' | 'DEPLOYED' | 'FAILED'; txHash: string | null };
  pool: { dex: string; state: 'PENDING' | 'CREATED' | 'FAILED'; address: string | null; txHash: string | null } | null;
  launchFee: { startBps: number; endsAt: string } | null;
  createdAt: string;
  graduatedAt: string | null;
}

export interface Trade {
  tradeId: string;
  tokenId: string;
  wallet: string;
  side: 'buy' | 'sell';
  usdAmount: string;
  feeUsd: string;
  tokenAmount: string;
  priceUsd: string;
  /** Without the fee (docs/api.md); absent from events of older versions. */
  executionPriceUsd?: string;
  settlementTx: string | null;
  venue: string;
  createdAt: string;
}

export interface Candle {
  openTime: string;
  open: string;
  high: string;
  low: string;
  close: string;
  volumeUsd: string;
  trades: number;
}

export interface Holder {
  wallet: string;
  balance: string;
  share: string;
}

export interface Position {
  network: string;
  tokenId: string;
  symbol: string;
  balance: string;
  costBasisUsd: string;
  avgEntryPriceUsd: string;
  realizedPnlUsd: string;
  currentPriceUsd: string;
  valueUsd: string;
  unrealizedPnlUsd: string;
  onChainBalance: string | null;
}

export interface Positions {
  wallet: string;
  network: string;
  items: Position[];
  totals: { valueUsd: string; costBasisUsd: string; unrealizedPnlUsd: string; realizedPnlUsd: string };
}

export interface Earnings {
  wallet: string;
  accruedUsd: string;
  paidUsd: string;
  pendingUsd: string;
  payoutMinUsd: string;
  items: { network: string; tokenId: string; role: string; accruedUsd: string; paidUsd: string; pendingUsd: string }[];
}

export interface Delivery {
  deliveryId: string;
  amount: string;
  state: 'PENDING' | 'SENT' | 'CONFIRMED' | 'FAILED';
  txHash: string | null;
}

export interface Payout {
  payoutId: string;
  amount: string;
  asset?: string;
  state: 'PENDING' | 'SENT' | 'CONFIRMED' | 'FAILED';
  txHash: string | null;
}

export interface BuyResult {
  tokenId: string;
  tokensReceived: string;
  usdSpent: string;
  feeUsd: string;
  priceUsd: string;
  position: Position;
  trade: Trade;
  delivery: Delivery;
}

export interface SellResult {
  tokenId: string;
  tokensSold: string;
  usdReceived: string;
  feeUsd: string;
  position: Position;
  trade: Trade;
  payout: Payout;
}

export interface StreamEvent<T = Record<string, unknown>> {
  id: number;
  type: string;
  network: string;
  tokenId: string | null;
  data: T;
  createdAt: string;
}

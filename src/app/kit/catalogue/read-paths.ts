/**
 * Where each free read answers over HTTP, by its operation name (docs/decisions/0043): written
 * once, here. The catalogue (each room's `catalogue.ts`) routes by these paths and the page's client
 * (`adapters/web/browser/api.ts`) requests them. Data only: the page bundles this module, so it
 * imports nothing.
 */
export const READ_PATHS = {
  list_tokens: '/tokens',
  get_token: '/tokens/:id',
  list_positions: '/positions',
  quote: '/api/quote',
  prices: '/api/prices',
  list_trades: '/api/tokens/:id/trades',
  candles: '/api/tokens/:id/candles',
  holders: '/api/tokens/:id/holders',
  list_comments: '/tokens/:id/comments',
  hide_comment: '/tokens/:id/comments/:commentId/hide',
  get_payment: '/api/payments/:paymentId',
  get_delivery: '/api/deliveries/:deliveryId',
  get_payout: '/api/payouts/:payoutId',
  sell_authorization: '/api/tokens/:id/sell-authorization',
  earnings: '/api/wallets/:address/earnings',
  creators: '/api/creators',
  stats: '/api/stats',
  get_raise: '/api/tokens/:id/raise',
  pledge_authorization: '/api/tokens/:id/pledge-authorization',
  cancel_pledge: '/api/pledges/:pledgeId/cancel',
  order_authorization: '/api/orders/authorization',
  get_order: '/api/orders/:orderId',
  list_orders: '/api/orders',
  order_book: '/api/tokens/:id/orders',
  cancel_order: '/api/orders/:orderId/cancel',
} as const;

/** A free read's operation name. */
export type ReadName = keyof typeof READ_PATHS;

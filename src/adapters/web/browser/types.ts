/**
 * The API's answers as the page reads them (docs/api.md "Resources"): each derived from the
 * catalogue's output schemas (src/app/api-types.ts for the free reads, the paid
 * operations' schemas for their answers), imported as types only — no zod, nothing of the app in
 * the bundle. Unknown fields are ignored. No shape is written here.
 */
import type { z } from 'zod';
import type { ReadOutputs } from '../../../app/api-types.js';
import type { buyOutput, sellOutput } from '../../../app/trading/schemas.js';

export type { Envelope, ReadName, ReadOutputs, ReadPaths, StreamEvent } from '../../../app/api-types.js';

export type Token = ReadOutputs['get_token'];
export type Trade = ReadOutputs['list_trades']['items'][number];
export type Candle = ReadOutputs['candles']['items'][number];
export type Holder = ReadOutputs['holders']['items'][number];
export type Positions = ReadOutputs['list_positions'];
export type Delivery = ReadOutputs['get_delivery'];
export type Payout = ReadOutputs['get_payout'];
export type CommentView = ReadOutputs['hide_comment'];
export type CommentThread = ReadOutputs['list_comments']['items'][number];
export type Raise = ReadOutputs['get_raise'];
export type PledgeResult = ReadOutputs['cancel_pledge'];
export type Order = ReadOutputs['get_order'];
export type WalletPledge = ReadOutputs['list_pledges']['pledges'][number];
export type WalletBalance = ReadOutputs['wallet_balance'];
export type Earnings = ReadOutputs['earnings'];
/** What a paid call answers once its payment is still settling (202): the payment to follow. */
export type PaymentPending = Pick<ReadOutputs['get_payment'], 'paymentId'>;

export type BuyResult = z.output<typeof buyOutput>;
export type SellResult = z.output<typeof sellOutput>;

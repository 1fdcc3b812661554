/**
 * The API as the page calls it: same origin, the envelopes of docs/api.md. An error envelope
 * becomes an ApiError carrying its code, message and details, and `explain` turns any failure
 * into words a person can act on. A free read is requested by its name in the catalogue
 * (`read('get_token', { id })`): its path is the one its catalogue entry routes, which the build
 * writes into the bundle (`READ_PATHS`, read-paths.d.ts).
 */
import type { Envelope, ReadName, ReadOutputs, ReadPaths } from './types.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly requestId: string | null = null,
  ) {
    super(message);
  }
}

/** Reads an answer's envelope: its data, or an ApiError. */
export async function readEnvelope<T>(res: Response): Promise<T> {
  let body: Envelope<T> | undefined;
  try {
    body = (await res.json()) as Envelope<T>;
  } catch {
    throw new ApiError(res.status, 'UNREADABLE_ANSWER', `The service answered ${res.status} with something that is not JSON.`);
  }
  if (body?.success === false && body.error) {
    throw new ApiError(res.status, body.error.code, body.error.message, body.error.details ?? {}, res.headers.get('x-request-id'));
  }
  if (!res.ok || !body?.success || body.data === undefined) throw new ApiError(res.status, 'UNEXPECTED_ANSWER', `The service answered ${res.status}.`);
  return body.data;
}

export async function get<T>(path: string, init: RequestInit = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, { ...init, headers: { accept: 'application/json', ...(init.headers as Record<string, string> | undefined) } });
  } catch {
    throw new ApiError(0, 'UNREACHABLE', 'The service could not be reached. Check your connection and try again.');
  }
  return readEnvelope<T>(res);
}

export const query = (params: Record<string, string | number | undefined | null>) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
};

/** The `:param` names of a path template. */
type PathParams<P extends string> = P extends `${string}:${infer K}/${infer Rest}` ? K | PathParams<`/${Rest}`> : P extends `${string}:${infer K}` ? K : never;
type Query = Record<string, string | number | undefined | null>;
/** A read's arguments: its path parameters (when it has any), then its query. */
type ReadArgs<N extends ReadName> = [PathParams<ReadPaths[N]>] extends [never] ? [params?: Record<string, never>, q?: Query] : [params: Record<PathParams<ReadPaths[N]>, string>, q?: Query];

/** The URL of a free read: its path with each `:param` filled (encoded), then its query. */
export function readUrl<N extends ReadName>(name: N, ...[params, q]: ReadArgs<N>): string {
  const filled: Record<string, string> = params ?? {};
  const path = (READ_PATHS as ReadPaths)[name].replace(/:(\w+)/g, (_, key: string) => encodeURIComponent(filled[key] ?? ''));
  return path + query(q ?? {});
}

/** Requests a free read by its operation name; it answers that read's output. */
export const read = <N extends ReadName>(name: N, ...args: ReadArgs<N>): Promise<ReadOutputs[N]> => get<ReadOutputs[N]>(readUrl(name, ...args));

/** What a code means for the person, before the service's own message (which is always shown too). */
const LEADS: Record<string, string> = {
  VALIDATION_ERROR: 'Something in the form is not accepted.',
  PAYMENT_INVALID: 'The payment was refused; nothing was charged.',
  INSUFFICIENT_FUNDS: 'Your wallet does not hold enough to pay this; nothing was charged.',
  NETWORK_MISMATCH: 'The payment was signed for another network than your wallet pays on; nothing was charged.',
  PAYMENT_REQUIRED: 'This needs a payment.',
  SLIPPAGE_EXCEEDED: 'The price moved past your limit; nothing was charged for the trade.',
  INSUFFICIENT_BALANCE: 'You do not hold that many tokens.',
  TOKEN_GRADUATED: 'This token has graduated from its curve; its pool is not ready yet.',
  CURVE_CAPACITY_EXCEEDED: 'That is more than what is left on the curve.',
  TOKEN_NETWORK_MISMATCH: 'This token lives on another network than your wallet pays on.',
  TOKEN_NOT_DEPLOYED: 'The token contract is still being deployed; try again in a few seconds.',
  TOKEN_AUTHORIZATION_INVALID: 'The permission to move your tokens was not accepted.',
  HELD_AUTHORIZATION_INVALID: 'The permission you signed for this order cannot be used; nothing was charged.',
  ORDER_NOT_OPEN: 'This order is no longer open; it cannot be cancelled.',
  ORDER_WALLET_NOT_PROVEN: 'Only the wallet that placed this order can cancel it.',
  PAYMENT_ALREADY_USED: 'This payment was already used for another request.',
  QUOTE_EXPIRED: 'The quote expired; ask for a new price.',
  RATE_LIMITED: 'Too many requests from here for a moment; wait and try again.',
  SERVICE_UNAVAILABLE: 'The service is briefly unavailable; try again shortly.',
  NETWORK_DETECTION_UNAVAILABLE: 'The service cannot tell your wallet’s network right now; try again shortly.',
  FACILITATOR_ERROR: 'The payment processor answered wrongly; nothing was charged.',
  TOKEN_NOT_FOUND: 'There is no such token.',
  TOKEN_RAISING: 'This token is a fair launch still raising: pledge instead; it trades once the raise ends.',
  RAISE_CLOSED: 'The raise has ended; it takes no more pledges.',
  PLEDGE_CAP_EXCEEDED: 'That is more than one wallet may pledge to this raise; nothing was charged.',
  PLEDGE_NOT_CANCELLABLE: 'This pledge cannot be cancelled.',
  NOT_FOUND: 'Not found.',
  INTERNAL_ERROR: 'The service failed; quote the request id when reporting it.',
  COMMENT_TEXT_EMPTY: 'Write something first; nothing was charged.',
  COMMENT_TEXT_TOO_LONG: 'A comment holds at most 500 characters; nothing was charged.',
  COMMENT_CONTROL_CHARACTER: 'The comment holds an invisible control character; nothing was charged.',
  COMMENT_BIDI_CONTROL: 'The comment holds a character that reorders text; nothing was charged.',
  COMMENT_REPLY_INVALID: 'That comment takes no replies; nothing was charged.',
  COMMENT_NOT_FOUND: 'That comment is not there any more.',
  NOT_TOKEN_CREATOR: 'Only the token’s creator hides its comments.',
  WALLET_REJECTED: 'You declined in your wallet; nothing was signed or paid.',
  NO_WALLET: 'No browser wallet was found.',
  WRONG_CHAIN: 'Your wallet is on another network.',
};

export interface Explained {
  lead: string;
  message: string;
  code: string;
  requestId: string | null;
}

/** Any failure — an error envelope, a wallet's refusal, a lost connection — in words. */
export function explain(e: unknown): Explained {
  if (e instanceof ApiError) {
    const reason = typeof e.details.reason === 'string' ? ` (${e.details.reason.replaceAll('_', ' ')})` : '';
    return { lead: LEADS[e.code] ?? 'The request was refused.', message: e.message + reason, code: e.code, requestId: e.requestId };
  }
  const err = e as { code?: number | string; message?: string; shortMessage?: string; name?: string } | null;
  const walletCode = err?.code ?? (err as { cause?: { code?: number } } | null)?.cause?.code;
  if (walletCode === 4001 || err?.name === 'UserRejectedRequestError') {
    return { lead: LEADS.WALLET_REJECTED!, message: err?.shortMessage ?? err?.message ?? 'Request rejected.', code: 'WALLET_REJECTED', requestId: null };
  }
  const code = typeof err?.code === 'string' ? err.code : 'ERROR';
  return { lead: LEADS[code] ?? 'Something went wrong.', message: err?.shortMessage ?? err?.message ?? String(e), code, requestId: null };
}

/**
 * Fair launches' entries of the catalogue (docs/api.md "Fair launches"): the paid pledge; the raise, a pledge's typed data and its cancel (free).
 */
import { checksummed } from '../kit/address.js';
import { z } from 'zod';
import { parseUsd } from '../../domain/money.js';
import { authorizationFromText } from '../../domain/token-authorization.js';
import { type Entrypoint, fixed } from '../kit/catalogue/entrypoint.js';
import { read } from '../kit/catalogue/operation.js';
import { token, tokenField } from '../kit/catalogue/read-fields.js';
import { parseWith, walletSchema } from '../kit/schemas.js';
import { getRaise } from './get-raise.js';
import { type PledgeRequest, cancelPledge, checkPledge, placePledge, pledgeAuthorization, reservePledgeAuthorization } from './pledge.js';
import { cancelPledgeInput, pledgeAuthorizationOutput, pledgeAuthorizationQuery, pledgeInput, pledgeOutput, raiseOutput } from './schemas.js';
import { RAISE_EXAMPLES } from './examples.js';
import { walletPledges, walletPledgesOutput } from './wallet-pledges.js';

/** token_pledge: a fair launch's pledge, a held USDC authorization (docs/api.md "Fair launches"). */
export function pledgeEntrypoint(): Entrypoint<PledgeRequest> {
  return {
    kind: 'paid',
    name: 'token_pledge',
    example: RAISE_EXAMPLES.token_pledge,
    operation: 'pledge',
    tool: {
      name: 'token_pledge',
      title: 'Pledge to a fair launch',
      readOnly: false,
      howTo: 'Step 2 of a pledge: call prepare_pledge first, sign its typedData, and pass its authorization with the signature.',
    },
    description:
      "Pledge USDC to a fair launch's raise (a token created with launch.mode fair): the signed USDC authorization (GET /api/tokens/:id/pledge-authorization) is held, not used; at the raise's end it is collected only if the raise reaches its goal, and every pledger gets tokens at one price. $0.01, whatever happens.",
    ...fixed((settings) => settings.prices.pledge),
    successStatus: 201,
    inputSchema: pledgeInput,
    outputSchema: pledgeOutput,
    parse: (raw) => {
      const v = parseWith(pledgeInput, raw);
      const a = v.authorization;
      return {
        tokenId: v.tokenId,
        usdAmount: parseUsd(v.usdAmount),
        authorization: authorizationFromText(a),
      };
    },
    // Every refusal here, before the $0.01 is asked for: a pledge that cannot count charges nothing.
    async prepare(deps, input, caller, phase) {
      const { token } = await checkPledge(deps, input, phase, caller);
      return { amount: deps.settings.prices.pledge, network: token.network };
    },
    reserve: (deps, input, prepared, payment) => reservePledgeAuthorization(deps, input, prepared.network ?? payment.network, payment.paymentId),
    execute: (deps, input, _p, _caller, paid) => placePledge(deps, input, paid),
  };
}

/** The free reads of this room, by operation (the assembly in ../catalogue.ts orders them). */
export function raiseReads() {
  return {
    get_raise: read({
      operation: 'get_raise',
      tool: { name: 'get_raise', title: "A fair launch's raise" },
      description:
        "A fair launch's raise (a token created with launch.mode fair): state RAISING (settling once it ended), FILLED or FAILED, the goal, the end, the total pledged and its progress, pledges by wallet and each pledge — with its tokens once FILLED, all bought at one price.",
      summary: "a fair launch's raise: state, goal, pledged, pledges and their tokens",
      http: { path: '/api/tokens/:id/raise', params: token },
      inputSchema: z.strictObject(tokenField),
      outputSchema: raiseOutput,
      run: (deps, q) => getRaise(deps, q.tokenId),
    }),
    pledge_authorization: read({
      operation: 'pledge_authorization',
      tool: { name: 'prepare_pledge', title: 'Prepare a pledge' },
      description:
        "Step 1 of a pledge to a fair launch: the EIP-712 typed data `wallet` signs — a USDC ReceiveWithAuthorization of exactly usdAmount to the service's custody, valid a day past the raise's end, with a fresh nonce — and the authorization to send to token_pledge with the `signature` added. Nothing moves unless the raise fills.",
      summary: 'the EIP-712 typed data a pledger signs before token_pledge',
      http: { path: '/api/tokens/:id/pledge-authorization', params: token, errors: [409] },
      inputSchema: pledgeAuthorizationQuery.extend(tokenField),
      outputSchema: pledgeAuthorizationOutput,
      run: (deps, q) => pledgeAuthorization(deps, { tokenId: q.tokenId, wallet: checksummed(q.wallet), usdAmount: parseUsd(q.usdAmount, 'usdAmount') }),
    }),
    list_pledges: read({
      operation: 'list_pledges',
      tool: { name: 'list_pledges', title: "List a wallet's pledges" },
      description:
        "A wallet's pledges in force (PLEDGED: held, not collected yet), of every raise, oldest first, each with its tokenId and its raise's end — until which cancel_pledge cancels it. Pledges collected, cancelled, released or dropped are in each raise (get_raise).",
      summary: "a wallet's pledges in force, of every raise",
      http: { path: '/api/pledges' },
      inputSchema: z.strictObject({ wallet: walletSchema }),
      outputSchema: walletPledgesOutput,
      run: (deps, q) => walletPledges(deps, checksummed(q.wallet)),
    }),
    cancel_pledge: read({
      operation: 'cancel_pledge',
      tool: { name: 'cancel_pledge', title: 'Cancel a pledge', readOnly: false },
      description:
        'Cancel a pledge before its raise ends, free: `signature` is the pledger\'s personal_sign (EIP-191) of the text "Cancel pledge <pledgeId>" (over HTTP, a SIGN-IN-WITH-X proof of the pledger may stand instead). A cancelled pledge is never collected.',
      summary: 'cancel a pledge until its raise ends (signed by the pledger)',
      http: { path: '/api/pledges/:pledgeId/cancel', method: 'post', errors: [403, 409] },
      inputSchema: cancelPledgeInput,
      outputSchema: pledgeOutput,
      run: (deps, q, call) => cancelPledge(deps, { pledgeId: q.pledgeId, signature: q.signature, provenWallet: call.provenWallet }),
    }),
  };
}

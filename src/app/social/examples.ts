/** A comment's worked example. For discovery documents (kit/catalogue/example-fixtures.ts says how they are kept true). */
import type { EntrypointExample } from '../kit/catalogue/entrypoint.js';
import { TOKEN_ID, WALLET, NETWORK, CREATED } from '../kit/catalogue/example-fixtures.js';
const comment = {
  commentId: 'cmt_01JD5X9A2B3C4D5E6F7G8H9J0K',
  tokenId: TOKEN_ID,
  network: NETWORK,
  author: WALLET,
  text: 'Holding since the first block. <b>this stays text</b>',
  hidden: false,
  hiddenAt: null,
  replyTo: null,
  createdAt: CREATED,
  holding: { balance: '884495.5', share: '0.011056' },
  badges: ['top_holder'],
};

export const COMMENT_EXAMPLES = {
  token_comment: { input: { tokenId: TOKEN_ID, text: 'Holding since the first block. <b>this stays text</b>' }, output: comment },
} satisfies Record<string, EntrypointExample>;

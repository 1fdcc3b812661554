/**
 * The payment step every paid action goes through: the price the 402 names is shown first (each
 * offered asset, on its network), nothing is signed until the person presses Pay, then the wallet
 * signs and the answer — or the refusal, in words — is shown.
 */
import { announce, fill, h } from '../dom.js';
import { networkName, shortAddress } from '../format.js';
import type * as Pay from '../pay.js';
import type { Answered, Offer, PayState } from '../pay.js';
import { errorBox } from '../ui.js';

export interface CheckoutOptions<T> {
  url: string;
  body: unknown;
  wallet: string;
  /** What is being paid for, in words ("Buy $1 of MCAT"). */
  what: string;
  onAnswer(answer: Answered<T>): void;
}

const STATE_TEXT: Record<PayState, string> = {
  signing: 'Confirm the payment in your wallet…',
  submitting: 'Paying and applying…',
  settling: 'The payment is settling on chain; this page follows it…',
};

const offerLabel = (o: Offer) => `${o.amount} ${o.assetName} on ${networkName(o.network)}`;

/** The address a payment goes to, shortened to fit the panel: the whole of it in its title and one Copy away. */
function payTo(address: string): HTMLElement {
  const copy = h('button', { type: 'button', class: 'ghost small', 'aria-label': `Copy the address ${address}` }, 'Copy');
  copy.addEventListener('click', () => void navigator.clipboard?.writeText(address).then(() => announce('Address copied.')));
  return h('span', { class: 'nowrap' }, h('code', { title: address, 'data-testid': 'pay-to', 'data-address': address }, shortAddress(address)), ' ', copy);
}

export async function checkout<T>(box: HTMLElement, options: CheckoutOptions<T>): Promise<void> {
  fill(box, h('p', { class: 'muted', role: 'status' }, 'Asking the service for the price…'));
  let pay: typeof Pay;
  try {
    pay = await import('../pay.js');
    const priced = await pay.price<T>(options.url, options.body, options.wallet);
    if (priced.kind === 'answered') return options.onAnswer(priced);
    let chosen = 0;
    const payButton = h('button', { type: 'button', class: 'primary' }, '');
    const label = () => (payButton.textContent = `Sign and pay ${offerLabel(priced.offers[chosen]!)}`);
    label();
    const choices =
      priced.offers.length > 1
        ? h(
            'fieldset',
            { class: 'offers' },
            h('legend', {}, 'Pay with'),
            priced.offers.map((o) =>
              h(
                'label',
                {},
                h('input', {
                  type: 'radio',
                  name: 'offer',
                  value: o.index,
                  checked: o.index === 0,
                  onchange: () => {
                    chosen = o.index;
                    label();
                  },
                }),
                ` ${offerLabel(o)}`,
              ),
            ),
          )
        : null;
    const first = priced.offers[0]!;
    const status = h('p', { class: 'muted', role: 'status' });
    const cancel = h('button', { type: 'button', class: 'ghost', onclick: () => fill(box) }, 'Cancel');
    fill(
      box,
      h(
        'div',
        { class: 'price', 'data-testid': 'price' },
        h('p', {}, options.what),
        h('p', { class: 'price-line' }, 'Price: ', h('strong', { 'data-price': first.amount, 'data-asset': first.assetName }, offerLabel(first))),
        h('p', { class: 'muted small pay-to' }, 'Paid to ', payTo(first.payTo), ' with an x402 authorization your wallet signs; nothing moves until you press Pay.'),
        choices,
        h('div', { class: 'actions' }, payButton, cancel),
        status,
      ),
    );
    announce(`Price: ${offerLabel(first)}`);
    payButton.focus();
    payButton.addEventListener('click', async () => {
      payButton.disabled = true;
      cancel.disabled = true;
      try {
        const answer = await pay.pay<T>(options.url, options.body, options.wallet, priced, chosen, (s) => {
          status.textContent = STATE_TEXT[s];
        });
        fill(box);
        options.onAnswer(answer);
      } catch (e) {
        const retry = h('button', { type: 'button', onclick: () => void checkout(box, options) }, 'Ask for the price again');
        fill(box, errorBox(e), h('div', { class: 'actions' }, retry));
        announce('The payment did not go through.');
      }
    });
  } catch (e) {
    fill(box, errorBox(e));
    announce('The request was refused.');
  }
}

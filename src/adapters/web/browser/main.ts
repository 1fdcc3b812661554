/**
 * The page for people (docs/api.md "The page"): a small hash router over four views, all built
 * on the public API of this same service. No framework: the DOM, a few helpers, and code that
 * loads only when a view needs it (the chart, the wallet, the x402 client).
 */
import './styles.css';
import { fill, h } from './dom.js';
import { shortAddress } from './format.js';
import { connect, currentAddress, disconnect, injected, onWalletChange, restore } from './session.js';
import { errorBox } from './ui.js';
import { createView } from './views/create.js';
import { feedView } from './views/feed.js';
import { tokenView } from './views/token.js';
import { walletView } from './views/wallet-view.js';

type View = (root: HTMLElement, param: string | null) => (() => void) | void;

const ROUTES: [RegExp, string, View][] = [
  [/^#?\/?(?:\?.*)?$/, 'feed', (root) => feedView(root)],
  [/^#\/token\/(tok_[0-9A-Za-z]{26})$/, 'feed', (root, id) => tokenView(root, id!)],
  [/^#\/wallet(?:\/(0x[0-9a-fA-F]{40}))?$/, 'wallet', (root, address) => walletView(root, address)],
  [/^#\/create$/, 'create', (root) => createView(root)],
];

const main = document.getElementById('main')!;
let leave: (() => void) | void;
let first = true;

function route(): void {
  leave?.();
  leave = undefined;
  document.title = 'x402 launchpad';
  const hash = location.hash || '#/';
  const found = ROUTES.find(([re]) => re.test(hash));
  for (const a of document.querySelectorAll('[data-nav]')) a.removeAttribute('aria-current');
  if (!found) {
    fill(main, h('h1', {}, 'Not found'), h('p', {}, h('a', { href: '#/' }, 'See all tokens')));
  } else {
    const [re, nav, view] = found;
    document.querySelector(`[data-nav="${nav}"]`)?.setAttribute('aria-current', 'page');
    leave = view(main, re.exec(hash)?.[1] ?? null);
  }
  // Keyboard and screen-reader users land on the new content, not on the link they followed;
  // everyone lands at its top, "← All tokens" in view, not scrolled to where the last page was.
  if (!first) main.focus({ preventScroll: true });
  window.scrollTo(0, 0);
  first = false;
}

function walletSlot(): void {
  const slot = document.getElementById('wallet-slot')!;
  const address = currentAddress();
  if (address) {
    fill(slot, h('a', { href: '#/wallet', class: 'wallet-chip', title: address, 'data-testid': 'connected' }, shortAddress(address)), h('button', { type: 'button', class: 'ghost small', onclick: () => disconnect() }, 'Disconnect'));
    return;
  }
  const button = h('button', { type: 'button', class: 'primary', title: injected() ? 'Connect your browser wallet' : 'No browser wallet found' }, 'Connect wallet');
  button.addEventListener('click', () => {
    void connect().catch((e: unknown) => {
      // One answer at a time on top of the view: pressing again replaces it.
      for (const old of main.querySelectorAll(':scope > .flash')) old.remove();
      const box = errorBox(e);
      box.classList.add('flash');
      main.prepend(box);
    });
  });
  fill(slot, button);
}

// The skip link moves focus to the content; following its href would change the route.
document.querySelector('.skip')?.addEventListener('click', (e) => {
  e.preventDefault();
  main.focus();
});

onWalletChange(walletSlot);
walletSlot();
window.addEventListener('hashchange', route);
route();
void restore();

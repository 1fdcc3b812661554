/**
 * The token feed: newest, by market cap or by 24 h volume, searched by name or symbol prefix.
 * New tokens and trades arrive over the event stream without a reload.
 */
import { read } from '../api.js';
import { announce, fill, h } from '../dom.js';
import { ago, changeSinceLaunch, networkName, percentText, shortId, timeLeft, usdText } from '../format.js';
import { subscribe } from '../live.js';
import type { StreamEvent, Token } from '../types.js';
import { avatar, curveProgress, errorBox, ON_DEVNET, progressBar } from '../ui.js';

const SORTS = [
  ['created', 'Newest'],
  ['marketCap', 'Market cap'],
  ['volume24h', '24 h volume'],
] as const;
type Sort = (typeof SORTS)[number][0];

/** The price change a card shows: over 24 h for a token younger than a day (since its launch), else since launch, said so. */
function change(t: Token): HTMLElement | null {
  const since = changeSinceLaunch(t);
  if (since === null) return null;
  const young = Date.now() - Date.parse(t.createdAt) < 86_400_000;
  const zero = /^-?0(\.0*)?$/.test(since);
  const text = `${zero || since.startsWith('-') ? '' : '+'}${percentText(since)}`;
  return h('span', { class: zero ? 'flat' : since.startsWith('-') ? 'down' : 'up', 'data-testid': 'card-change', title: young ? 'price change over 24 h (since launch)' : 'price change since launch' }, young ? `${text} 24 h` : `${text} since launch`);
}

/** A fair launch still taking pledges (or collecting them): it has no trades to show yet. */
const raising = (t: Token) => t.launchMode === 'fair' && t.tradingSince === null;

/**
 * A raising token's figures (decision 0076): "raising", pledged of goal, time left and its
 * progress, from its raise (read once per card drawn); the time left counts down by itself.
 */
function raiseFigures(t: Token): HTMLElement {
  const figures = h('div', { class: 'card-raise', 'data-testid': 'card-raise' }, h('p', { class: 'card-figures' }, h('span', { class: 'badge raising' }, 'raising')));
  void read('get_raise', { id: t.tokenId })
    .then((r) => {
      const left = r.settling ? h('span', {}, 'ended, settling') : h('span', { 'data-ends-at': r.endsAt }, timeLeft(r.endsAt));
      fill(
        figures,
        h('p', { class: 'card-figures' }, h('span', { class: 'badge raising' }, 'raising'), h('span', { 'data-testid': 'card-pledged', title: `$${r.pledgedUsd} pledged of a $${r.goalUsd} goal` }, `${usdText(r.pledgedUsd)} of ${usdText(r.goalUsd)}`), left),
        progressBar(r.progress, 'Raise progress', `${percentText(r.progress)} of the goal pledged`),
        h('p', { class: 'card-meta muted small' }, `${r.pledgers} pledger${r.pledgers === 1 ? '' : 's'}`, ` · ${networkName(t.network)} · `, h('time', { datetime: t.createdAt }, ago(t.createdAt)), ' · ', h('span', { title: t.tokenId }, shortId(t.tokenId))),
      );
    })
    .catch(() => undefined); // the card stays "raising"; its page has the rest
  return figures;
}

/** What a trading token's card says: price and change, market figures, the curve's progress. */
function marketFigures(t: Token): HTMLElement[] {
  return [
    h('p', { class: 'card-price' }, h('strong', { title: `$${t.priceUsd}`, 'data-testid': 'card-price' }, usdText(t.priceUsd)), ' ', change(t)),
    h(
      'p',
      { class: 'card-figures' },
      h('span', { title: `$${t.marketCapUsd}` }, `MC ${usdText(t.marketCapUsd)}`),
      h('span', { title: `$${t.volumeUsd24h}` }, `Vol ${usdText(t.volumeUsd24h)}`),
      h('span', {}, `${t.holders} holder${t.holders === 1 ? '' : 's'}`),
    ),
    curveProgress(t),
    h('p', { class: 'card-meta muted small' }, t.state === 'GRADUATED' ? 'graduated' : `${percentText(t.curve.progress)} of curve`, ` · ${networkName(t.network)} · `, h('time', { datetime: t.createdAt }, ago(t.createdAt)), ' · ', h('span', { title: t.tokenId }, shortId(t.tokenId))),
  ];
}

function card(t: Token): HTMLLIElement {
  return h(
    'li',
    { class: 'card', id: `card-${t.tokenId}`, 'data-token-id': t.tokenId },
    h(
      'a',
      { href: `#/token/${t.tokenId}`, class: 'card-link' },
      avatar(t),
      h('div', { class: 'card-body' }, h('p', { class: 'card-title' }, h('span', { class: 'symbol-strong' }, t.symbol), ' ', h('span', { class: 'name' }, t.name)), raising(t) ? raiseFigures(t) : marketFigures(t)),
    ),
  );
}

/** Counts down every raise's time left on the feed, once a second. */
function countdown(list: HTMLElement): () => void {
  const timer = setInterval(() => {
    for (const el of list.querySelectorAll<HTMLElement>('[data-ends-at]')) el.textContent = timeLeft(el.dataset.endsAt!);
  }, 1000);
  return () => clearInterval(timer);
}

/** What changes a raising token's card: its pledges, and its raise's end. */
const RAISE_EVENTS = ['raise.pledged', 'raise.pledge_cancelled', 'raise.filled', 'raise.failed'];

const NETWORKS = [
  ['', 'All networks'],
  ['eip155:8453', 'Base'],
  ['eip155:84532', 'Base Sepolia'],
] as const;

type Network = (typeof NETWORKS)[number][0];

/** The feed's choices, as a link to it carries them (`#/?sort=…&q=…&network=…`). */
function filtersFromHash(): { sort: Sort; q: string; network: Network } {
  const params = new URLSearchParams(location.hash.split('?')[1] ?? '');
  return {
    sort: (SORTS.find(([s]) => s === params.get('sort'))?.[0] ?? 'created') as Sort,
    q: params.get('q') ?? '',
    network: NETWORKS.find(([n]) => n && n === params.get('network'))?.[0] ?? '',
  };
}

/** A group of chips, one pressed: pressing another presses it alone and chooses its value. */
function chips<V extends string>(options: readonly (readonly [V, string])[], current: V, choose: (value: V) => void): HTMLButtonElement[] {
  const buttons: HTMLButtonElement[] = options.map(([value, label]) =>
    h('button', { type: 'button', class: 'chip', 'aria-pressed': String(value === current), onclick: () => (buttons.forEach((b, i) => b.setAttribute('aria-pressed', String(options[i]![0] === value))), choose(value)) }, label),
  );
  return buttons;
}

/** The search box: what is typed is searched once typing pauses. */
function searchBox(q: string, onSearch: (q: string) => void): { input: HTMLInputElement; cancel: () => void } {
  const input = h('input', { id: 'search', type: 'search', placeholder: 'Name or symbol', autocomplete: 'off', value: q, maxlength: 32 });
  let typing: ReturnType<typeof setTimeout> | null = null;
  input.addEventListener('input', () => {
    if (typing) clearTimeout(typing);
    typing = setTimeout(() => onSearch(input.value.trim()), 250);
  });
  return {
    input,
    cancel: () => {
      if (typing) clearTimeout(typing);
    },
  };
}

/** Redraws a token's card after its trades, once per token per half second at most. */
function cardRefresher(): { refresh: (tokenId: string) => void; cancel: () => void } {
  const stale = new Map<string, ReturnType<typeof setTimeout>>();
  const redraw = async (tokenId: string) => {
    stale.delete(tokenId);
    try {
      const t = await read('get_token', { id: tokenId });
      const old = document.getElementById(`card-${tokenId}`);
      if (!old) return;
      const fresh = card(t);
      fresh.classList.add('fresh');
      old.replaceWith(fresh);
    } catch {
      // The next trade tries again.
    }
  };
  return {
    refresh: (tokenId) => {
      if (stale.has(tokenId) || !document.getElementById(`card-${tokenId}`)) return;
      stale.set(tokenId, setTimeout(() => void redraw(tokenId), 500));
    },
    cancel: () => {
      for (const t of stale.values()) clearTimeout(t);
    },
  };
}

/** Whether a token just created belongs at the top of the feed as it is filtered. */
function belongsOnTop(t: Token, { sort, q, network }: { sort: Sort; q: string; network: Network }): boolean {
  const matches = !q || t.name.toLowerCase().startsWith(q.toLowerCase()) || t.symbol.toLowerCase().startsWith(q.toLowerCase());
  return sort === 'created' && matches && !(network && t.network !== network);
}

/** What an empty feed says: why it is empty, and on the devnet how to fill it in a minute. */
function emptyFeed({ q, network }: { q: string; network: Network }): (string | HTMLElement)[] {
  if (q) return [`No token starts with “${q}”.`];
  const where = network ? ` on ${networkName(network)}` : '';
  const demo = ON_DEVNET ? [' Or run ', h('code', {}, 'npm run demo'), ' in a second terminal: it launches two tokens and trades them through the paid API, and they appear here as it goes.'] : [];
  return [h('span', { 'data-testid': 'empty-feed' }, `No tokens${where} yet — `, h('a', { href: '#/create' }, 'create the first one'), '.', ...demo)];
}

function feedLayout(sortButtons: HTMLElement[], networkButtons: HTMLElement[], search: HTMLElement, status: HTMLElement, list: HTMLElement, more: HTMLElement): HTMLElement {
  return h(
    'section',
    { 'aria-labelledby': 'feed-title' },
    h('div', { class: 'row spread' }, h('h1', { id: 'feed-title' }, 'Tokens'), h('a', { href: '#/create', class: 'button primary' }, 'Create a token')),
    h('div', { class: 'controls' }, h('div', { class: 'stack' }, h('div', { class: 'row', role: 'group', 'aria-label': 'Sort tokens' }, sortButtons), h('div', { class: 'row', role: 'group', 'aria-label': 'Network' }, networkButtons)), h('div', { class: 'search' }, h('label', { for: 'search' }, 'Search'), search)),
    status,
    list,
    more,
  );
}

export function feedView(root: HTMLElement): () => void {
  const filters = filtersFromHash();
  let cursor: string | null = null;
  let loading = 0;
  const list = h('ul', { class: 'cards', 'aria-label': 'Tokens', 'data-testid': 'feed' });
  const more = h('button', { type: 'button', class: 'ghost', hidden: true, onclick: () => void load(true) }, 'Load more');
  const status = h('p', { class: 'muted', role: 'status' });
  const sortButtons = chips(SORTS, filters.sort, (value) => ((filters.sort = value), void load(false)));
  const networkButtons = chips(NETWORKS, filters.network, (value) => ((filters.network = value), void load(false)));
  const search = searchBox(filters.q, (q) => ((filters.q = q), void load(false)));
  const cards = cardRefresher();

  async function load(append: boolean): Promise<void> {
    const mine = ++loading;
    if (!append) cursor = null;
    status.textContent = 'Loading…';
    try {
      const { sort, q, network } = filters;
      const page = await read('list_tokens', {}, { sort, q, network: network || null, limit: 24, cursor: append ? cursor : null });
      if (mine !== loading) return;
      if (!append) fill(list);
      for (const t of page.items) if (!document.getElementById(`card-${t.tokenId}`)) list.append(card(t));
      cursor = page.nextCursor;
      more.hidden = !cursor;
      fill(status, list.children.length ? '' : emptyFeed(filters));
    } catch (e) {
      if (mine === loading) fill(status, errorBox(e));
    }
  }

  const unsubscribe = subscribe(
    {},
    {
      'token.created': (e) => {
        const t = (e.data as { token?: Token }).token;
        if (!t || document.getElementById(`card-${t.tokenId}`) || !belongsOnTop(t, filters)) return;
        const c = card(t);
        c.classList.add('fresh');
        list.prepend(c);
        status.textContent = '';
        announce(`New token: ${t.name} (${t.symbol})`);
      },
      'trade.executed': (e) => {
        if (e.tokenId) cards.refresh(e.tokenId);
      },
      ...Object.fromEntries(RAISE_EVENTS.map((type) => [type, (e: StreamEvent) => e.tokenId && cards.refresh(e.tokenId)])),
    },
  );
  const stopCountdown = countdown(list);

  fill(root, feedLayout(sortButtons, networkButtons, search.input, status, list, more));
  void load(false);
  return () => {
    unsubscribe();
    stopCountdown();
    cards.cancel();
    search.cancel();
  };
}

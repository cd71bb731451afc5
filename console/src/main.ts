/**
 * The web console of kafka-mock-coordinator: hash routes (`#/`, `#/groups/<id>`, `#/transactions`,
 * `#/transactions/<id>`, `#/faults`), each page refetching what it shows when the server's event
 * stream says it changed.
 */
import { followEvents, NeedsToken, setToken, type ChangeNotice } from './api.js';
import { fill, h } from './dom.js';
import { faultsPage } from './faults-page.js';
import { groupPage } from './group-page.js';
import { overviewPage } from './overview-page.js';
import type { Page } from './page.js';
import { transactionPage, transactionsPage } from './transactions-page.js';
import './style.css';

const main = document.getElementById('main')!;
const live = document.getElementById('live')!;
const tokenBox = document.getElementById('token')!;
const tokenForm = document.getElementById('token-form') as HTMLFormElement;
const tokenInput = document.getElementById('token-input') as HTMLInputElement;
const tokenError = document.getElementById('token-error')!;

let page: Page | null = null;
let refreshing = false;
let again = false;
/** A token was given and not yet accepted: a 401 now means it was wrong. */
let tokenOnTrial = false;

/** Shows only the token form: the page's sections stay hidden until a refresh with a token succeeds. */
function askForToken(): void {
  main.hidden = true;
  tokenBox.hidden = false;
  tokenInput.focus();
}

tokenForm.addEventListener('submit', (event) => {
  event.preventDefault();
  tokenOnTrial = true;
  setToken(tokenInput.value.trim());
  tokenInput.value = '';
  fill(tokenError, '');
  tokenBox.hidden = true;
  void refresh();
});

/**
 * Refreshes for live changes start at least this long (ms) apart, whether the change came during a
 * refresh or after it: under a stream of changes a group of 36,000 partitions was asked for ~4
 * times a second, each answer ~35 ms of the server's event loop (adversarial trial, session 21).
 * Opening a page, or a token given, refreshes at once.
 */
const LIVE_REFRESH_MIN_MS = 1000;

/** When the last refresh started (`Date.now()`). */
let lastRefreshAt = -Infinity;
/** Ends the wait of a live refresh early (a page opened meanwhile). */
let wakeRefresh: (() => void) | null = null;
/** A refresh without waiting was asked for while one ran (a page opened). */
let againNow = false;

/**
 * Refreshes the current page: at once, or with `live` (a change notice) no sooner than
 * LIVE_REFRESH_MIN_MS after the last refresh began; a call meanwhile refreshes once more after it.
 */
async function refresh(live = false): Promise<void> {
  if (refreshing) {
    again = true;
    if (!live) {
      againNow = true;
      wakeRefresh?.();
    }
    return;
  }
  refreshing = true;
  try {
    let wait = live;
    do {
      if (wait && !againNow) {
        const ms = lastRefreshAt + LIVE_REFRESH_MIN_MS - Date.now();
        if (ms > 0) await new Promise<void>((resolve) => setTimeout((wakeRefresh = resolve), ms));
        wakeRefresh = null;
      }
      again = againNow = false;
      wait = true;
      lastRefreshAt = Date.now();
      await page?.refresh();
      // A page that refills only part of itself would keep the last failure's message.
      for (const stale of main.querySelectorAll(':scope > p.load-error')) stale.remove();
    } while (again);
    tokenOnTrial = false;
    main.hidden = false;
  } catch (err) {
    if (err instanceof NeedsToken) {
      if (tokenOnTrial) fill(tokenError, 'That token was refused.');
      tokenOnTrial = false;
      askForToken();
    } else {
      for (const stale of main.querySelectorAll(':scope > p.load-error')) stale.remove();
      main.prepend(h('p', { class: 'error load-error' }, `Could not load: ${(err as Error).message}`));
    }
  } finally {
    refreshing = false;
  }
}

/** The location's hash without '#', percent-decoded; a malformed escape (a hand-typed `%`) is taken literally rather than breaking routing. */
function decodedHash(): string {
  const raw = location.hash.replace(/^#/, '');
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function route(): void {
  page?.dispose?.();
  const hash = decodedHash() || '/';
  // One transaction's page is under Transactions in the menu.
  const section = hash.startsWith('/transactions/') ? '/transactions' : hash;
  for (const a of document.querySelectorAll('nav a')) a.classList.toggle('current', a.getAttribute('href') === `#${section}`);
  if (hash.startsWith('/groups/')) page = groupPage(main, hash.slice('/groups/'.length));
  else if (hash.startsWith('/transactions/')) page = transactionPage(main, hash.slice('/transactions/'.length));
  else if (hash === '/transactions') page = transactionsPage(main);
  else if (hash === '/faults') page = faultsPage(main);
  else page = overviewPage(main);
  void refresh();
}

function onChange(notice: ChangeNotice): void {
  if (page?.wants(notice)) void refresh(true);
}

function setLive(on: boolean): void {
  live.classList.toggle('off', !on);
  fill(live, on ? 'live' : 'reconnecting…');
}

window.addEventListener('hashchange', route);
route();
void followEvents(onChange, setLive, askForToken);

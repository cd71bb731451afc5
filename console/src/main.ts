/**
 * The web console of kafka-mock-coordinator: hash routes (`#/`, `#/groups/<id>`, `#/faults`), each
 * page refetching what it shows when the server's event stream says it changed.
 */
import { followEvents, NeedsToken, setToken, type ChangeNotice } from './api.js';
import { fill, h } from './dom.js';
import { faultsPage } from './faults-page.js';
import { groupPage } from './group-page.js';
import { overviewPage } from './overview-page.js';
import type { Page } from './page.js';
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
 * A page refreshed again for changes that came while it refreshed waits this long (ms) from the
 * start of the previous refresh: under a stream of changes a group of 36,000 partitions was asked
 * for ~4 times a second, each answer ~35 ms of the server's event loop (adversarial trial, session 21).
 */
const LIVE_REFRESH_MIN_MS = 1000;

/** Refreshes the current page; a change arriving meanwhile refreshes it once more afterwards, not sooner than LIVE_REFRESH_MIN_MS after. */
async function refresh(): Promise<void> {
  if (refreshing) {
    again = true;
    return;
  }
  refreshing = true;
  try {
    do {
      again = false;
      const started = Date.now();
      await page?.refresh();
      if (again) await new Promise((resolve) => setTimeout(resolve, Math.max(0, started + LIVE_REFRESH_MIN_MS - Date.now())));
    } while (again);
    tokenOnTrial = false;
    main.hidden = false;
  } catch (err) {
    if (err instanceof NeedsToken) {
      if (tokenOnTrial) fill(tokenError, 'That token was refused.');
      tokenOnTrial = false;
      askForToken();
    } else {
      main.prepend(h('p', { class: 'error' }, `Could not load: ${(err as Error).message}`));
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
  for (const a of document.querySelectorAll('nav a')) a.classList.toggle('current', a.getAttribute('href') === `#${hash === '/' ? '/' : hash}`);
  if (hash.startsWith('/groups/')) page = groupPage(main, hash.slice('/groups/'.length));
  else if (hash === '/faults') page = faultsPage(main);
  else page = overviewPage(main);
  void refresh();
}

function onChange(notice: ChangeNotice): void {
  if (page?.wants(notice)) void refresh();
}

function setLive(on: boolean): void {
  live.classList.toggle('off', !on);
  fill(live, on ? 'live' : 'reconnecting…');
}

window.addEventListener('hashchange', route);
route();
void followEvents(onChange, setLive, askForToken);

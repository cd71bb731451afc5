/** `#/faults`: fault rules (list, add, remove), the request log (filtered), the manual clock. */
import { api, ApiError } from './api.js';
import { fill, h, requestTable, table } from './dom.js';
import type { Clock, FaultRule, RequestEntry } from './types.js';
import type { Page } from './page.js';

/** The form's action choices: value, label. `ms` is the delay, the throttle time, or how long a hang lasts before it closes the connection. */
const ACTIONS: Array<[string, string]> = [
  ['error', 'error'],
  ['delay', 'delay (ms)'],
  ['close-before', 'close before handling'],
  ['close-after', 'close after handling (answer lost)'],
  ['hang', 'hang (then close after ms, if given)'],
  ['throttle', 'throttle (ms)'],
];

/** `key=value` pairs, leaving out what the rule's own words already say (codes of named APIs and errors, nth=1). */
function summary(obj: Record<string, unknown>, empty: string): string {
  const shown = Object.entries(obj).filter(([k, v]) => v !== undefined && k !== 'apiKey' && k !== 'errorCode' && k !== 'errorCodes' && !(k === 'nth' && v === 1));
  return shown.map(([k, v]) => `${k}=${valueText(v)}`).join(' ') || empty;
}

/** A match or action value as text: a list comma-separated, a prefix match (`{ prefix }`) as `prefix*`. */
function valueText(v: unknown): string {
  if (Array.isArray(v)) return v.join(',');
  if (v !== null && typeof v === 'object' && typeof (v as { prefix?: unknown }).prefix === 'string') return `${(v as { prefix: string }).prefix}*`;
  return String(v);
}

/** A labelled input named `name`, with the id `<form>-<name>` (ids are unique across the page's forms). */
function field(form: string, name: string, label: string, attrs: Record<string, string> = {}): HTMLElement {
  return h('label', {}, label, h('input', { name, id: `${form}-${name}`, ...attrs }));
}

export function faultsPage(root: HTMLElement): Page {
  const rules = h('div');
  const requests = h('div', { class: 'scroll' });
  const clock = h('div');
  const message = h('p', { id: 'rule-message', class: 'meta', role: 'status' });
  const actionSelect = h('select', { name: 'action', id: 'rule-action' }, ACTIONS.map(([value, label]) => h('option', { value }, label)));
  const form = h('form', { id: 'add-rule', class: 'inline-form' },
    field('rule', 'api', 'API', { placeholder: 'OffsetCommit', required: '' }),
    field('rule', 'group', 'group'),
    field('rule', 'topic', 'topic'),
    h('label', {}, 'action', actionSelect),
    field('rule', 'error', 'error', { placeholder: 'REBALANCE_IN_PROGRESS' }),
    field('rule', 'ms', 'ms', { type: 'number', min: '0' }),
    field('rule', 'times', 'times', { type: 'number', min: '1', placeholder: '1' }),
    h('button', { type: 'submit' }, 'Add rule'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const text = (name: string): string | undefined => {
      const v = String(data.get(name) ?? '').trim();
      return v === '' ? undefined : v;
    };
    const choice = text('action') ?? 'error';
    const action: Record<string, unknown> = choice.startsWith('close-') ? { type: 'close', when: choice.slice('close-'.length) } : { type: choice };
    if (choice === 'error') action['error'] = text('error') ?? 'UNKNOWN_SERVER_ERROR';
    if (choice === 'delay' || choice === 'throttle') action['ms'] = Number(text('ms') ?? 0);
    if (choice === 'hang' && text('ms') !== undefined) action['closeAfterMs'] = Number(text('ms'));
    const match: Record<string, unknown> = { api: text('api') };
    if (text('group') !== undefined) match['group'] = text('group');
    if (text('topic') !== undefined) match['topic'] = text('topic');
    const rule: Record<string, unknown> = { match, action };
    if (text('times') !== undefined) rule['times'] = Number(text('times'));
    api.post<FaultRule>('/faults', rule).then(
      (added) => {
        fill(message, `Added rule ${added.id}.`);
        void page.refresh();
      },
      (err: unknown) => fill(message, h('span', { class: 'error' }, `Not added: ${(err as Error).message}`)),
    );
  });

  // `failed only` and `error` ask the server, which keeps the last 1000 failures beyond the log's
  // 1000 requests (busy consumers turn the log over in seconds); a change applies at once.
  const filters = h('form', { id: 'request-filter', class: 'inline-form' },
    field('filter', 'api', 'API'), field('filter', 'group', 'group'), field('filter', 'error', 'error'),
    h('label', { class: 'check' }, h('input', { name: 'failed', id: 'filter-failed', type: 'checkbox' }), 'failed only'),
    h('button', { type: 'submit' }, 'Filter'));
  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    void page.refresh();
  });
  filters.querySelector('#filter-failed')!.addEventListener('change', () => void page.refresh());

  fill(root,
    h('h1', {}, 'Faults'),
    h('h2', {}, 'Rules'), rules,
    h('h3', {}, 'Add a rule'), form, message,
    h('h2', {}, 'Clock'), clock,
    h('h2', {}, 'Request log (newest 100)'), filters, requests);

  const clockNow = h('p', { id: 'clock-now', class: 'meta' });
  const advance = h('form', { id: 'clock-advance', class: 'inline-form' },
    h('label', {}, 'advance by (ms)', h('input', { name: 'ms', type: 'number', min: '0', value: '1000', required: '' })),
    h('button', { type: 'submit' }, 'Advance'));
  advance.addEventListener('submit', (event) => {
    event.preventDefault();
    const ms = Number(new FormData(advance).get('ms'));
    api.post('/clock/advance', { ms }).then(() => page.refresh(), (err: unknown) => fill(message, h('span', { class: 'error' }, (err as Error).message)));
  });
  const notManual = h('p', { class: 'meta' }, 'Start the server with --clock manual to move time by hand.');
  // Neither shows before the clock's mode is known.
  advance.hidden = true;
  notManual.hidden = true;
  fill(clock, clockNow, advance, notManual);
  const renderClock = (c: Clock): void => {
    fill(clockNow, `${c.mode} clock: ${c.nowIso}${c.pendingTimers !== null ? ` · ${c.pendingTimers} timers pending` : ''}`);
    advance.hidden = c.mode !== 'manual';
    notManual.hidden = c.mode === 'manual';
  };

  const page: Page = {
    wants: (notice) => notice.faults || notice.clock || notice.groups.length > 0,
    async refresh() {
      const f = new FormData(filters);
      const query = new URLSearchParams({ limit: '100' });
      const api_ = String(f.get('api') ?? '').trim();
      const group = String(f.get('group') ?? '').trim();
      const error = String(f.get('error') ?? '').trim();
      if (api_) query.set('api', api_);
      if (group) query.set('group', group);
      if (error) query.set('error', error);
      if (f.get('failed') !== null) query.set('failed', 'true');
      let entries: RequestEntry[] = [];
      let requestError: string | null = null;
      const [list, c] = await Promise.all([api.get<{ faults: FaultRule[] }>('/faults'), api.get<Clock>('/clock')]);
      try {
        entries = (await api.get<{ requests: RequestEntry[] }>(`/requests?${query}`)).requests;
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        requestError = err.message;
      }
      fill(rules, table('rules', ['id', 'match', 'action', 'times', 'fired', 'state', ''], list.faults.map((r) => [
        r.id, summary(r.match, 'every request'), `${r.action.type} ${summary({ ...r.action, type: undefined }, '')}`.trim(), String(r.times), r.fired, r.state,
        h('button', { type: 'button', class: 'remove', onclick: () => void api.delete(`/faults/${encodeURIComponent(r.id)}`).then(() => page.refresh()) }, 'Remove'),
      ]), 'no fault rules'));
      renderClock(c);
      fill(requests, requestError ? h('p', { class: 'error' }, requestError) : requestTable('requests', entries));
    },
  };
  return page;
}

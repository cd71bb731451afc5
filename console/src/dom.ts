import type { RequestEntry } from './types.js';

/**
 * Characters that change how the text around them reads without being seen: controls (but tab
 * and newline), format characters (zero-width ones, soft hyphens, bidirectional overrides, isolates
 * and marks, tag characters), line and paragraph separators, and the Hangul fillers that render
 * blank. A client id, group id or a client's rebalance reason may carry them (`\u202E` shows a
 * name backwards; tag characters hide text).
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u115F\u1160\u3164\uFFA0]/gu;

/** `text` with each invisible character shown as its escape (`\u202E`, `\u{E0041}`). */
export function visible(text: string): string {
  return text.replace(INVISIBLE, (c) => {
    if (c === '\t' || c === '\n') return c;
    const code = c.codePointAt(0)!;
    return code > 0xffff ? `\\u{${code.toString(16).toUpperCase()}}` : `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
  });
}

/** A tiny element builder: text always goes in as text, invisible characters shown (group ids and client ids are untrusted). */
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | ((event: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Array<Child | Child[]>): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === 'string' ? visible(child) : typeof child === 'number' ? String(child) : child);
  }
  return el;
}

/** A table with a header row; each row is a list of cells. */
export function table(id: string, head: string[], rows: Array<Array<Child | Child[]>>, empty = 'none'): HTMLElement {
  if (rows.length === 0) return h('p', { id, class: 'empty' }, empty);
  return h(
    'table',
    { id },
    h('thead', {}, h('tr', {}, head.map((c) => h('th', {}, c)))),
    h('tbody', {}, rows.map((cells) => h('tr', {}, cells.map((c) => h('td', {}, c))))),
  );
}

/** Replaces the children of `el`. */
export function fill(el: Element, ...children: Array<Child | Child[]>): void {
  el.replaceChildren(...children.flat().filter((c): c is Node | string | number => c !== null && c !== undefined && c !== false).map((c) => (typeof c === 'number' ? String(c) : typeof c === 'string' ? visible(c) : c)));
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

export function time(iso: string): string {
  const d = new Date(iso);
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 23)}`;
}

/**
 * Request log entries, newest first: the broker that received each (`--brokers N`), the error
 * answered (`NONE` for an answer without one) and the fault rules that fired on it.
 */
export function requestTable(id: string, entries: RequestEntry[], empty = 'no requests'): HTMLElement {
  return table(id, ['#', 'time', 'broker', 'api', 'version', 'client id', 'group', 'error', 'faults', 'outcome', 'ms'],
    [...entries].reverse().map((e) => [e.seq, time(e.time), e.brokerId, e.api, e.version, e.clientId, e.group ?? '-', e.error ?? 'NONE', e.faults.join(', ') || '-', e.outcome, e.durationMs ?? '-']), empty);
}

export function partitions(assignment: Array<{ topic: string; partitions: number[] }> | null): string {
  if (assignment === null) return '-';
  if (assignment.length === 0) return 'none';
  return assignment.map((a) => `${a.topic} [${a.partitions.join(', ')}]`).join('; ');
}

/**
 * The admin API as the page uses it: same-origin fetches (so the admin API's guard sees this
 * server's own Origin), JSON bodies for every change, and the bearer token when the server wants
 * one. The token is kept for this tab only (sessionStorage) and sent as a header, never in a URL.
 */
import type { ChangeNotice } from './types.js';

export type { ChangeNotice };

const TOKEN_KEY = 'kmc-admin-token';

export class NeedsToken extends Error {}

export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

let tokenListeners: Array<() => void> = [];

export function token(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(value: string): void {
  sessionStorage.setItem(TOKEN_KEY, value);
  const waiting = tokenListeners;
  tokenListeners = [];
  for (const resolve of waiting) resolve();
}

/** Resolves the next time a token is given. */
export function tokenGiven(): Promise<void> {
  return new Promise((resolve) => tokenListeners.push(resolve));
}

function headers(json: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  const t = token();
  if (t !== null) out['authorization'] = `Bearer ${t}`;
  if (json) out['content-type'] = 'application/json';
  return out;
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    headers: headers(body !== undefined),
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    cache: 'no-store',
    credentials: 'same-origin',
  });
  if (res.status === 401) throw new NeedsToken('this admin API needs a token');
  if (res.status === 204) return undefined as T;
  const data = (await res.json()) as T & { message?: string };
  if (!res.ok) throw new ApiError(res.status, data.message ?? `${method} ${path}: HTTP ${res.status}`);
  return data;
}

export const api = {
  get: <T>(path: string) => call<T>('GET', path),
  post: <T>(path: string, body: unknown) => call<T>('POST', path, body),
  delete: <T>(path: string) => call<T>('DELETE', path),
};


/**
 * Follows `GET /events` (server-sent events) for as long as the page is open, reconnecting after
 * a drop. Read with fetch rather than EventSource, which cannot send the Authorization header.
 */
export async function followEvents(onChange: (notice: ChangeNotice) => void, onLive: (live: boolean) => void, onNeedsToken: () => void): Promise<never> {
  for (;;) {
    try {
      const res = await fetch('/events', { headers: headers(false), cache: 'no-store' });
      if (res.status === 401) {
        onLive(false);
        onNeedsToken();
        await tokenGiven();
        continue;
      }
      if (!res.ok || !res.body) throw new Error(`GET /events: HTTP ${res.status}`);
      onLive(true);
      // Anything may have changed while disconnected.
      onChange({ groups: [], overview: true, faults: true, clock: true, transactions: true });
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          let event = 'message';
          let data = '';
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim();
            else if (line.startsWith('data:')) data += line.slice(5).trim();
          }
          if (event === 'change' && data !== '') onChange(JSON.parse(data) as ChangeNotice);
        }
      }
    } catch {
      // dropped: reconnect below
    }
    onLive(false);
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

/**
 * `sendJsonInSlices` (issue #16: no request keeps the others waiting): what it sends is
 * `JSON.stringify`'s text byte for byte, a small answer whole with its length, a long one a slice a
 * turn of the event loop, so that another request is answered while it is written (order of events,
 * never time). Over a real socket, through fastify.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { request } from 'node:http';
import { LazyArray, sendJsonInSlices } from '../../src/admin/json-in-slices.js';
import { nextTurn } from '../../src/util/slices.js';

let app: FastifyInstance | null = null;
afterEach(async () => {
  await app?.close();
  app = null;
});

/** An app answering `GET /value` with `value` through `sendJsonInSlices`, and `GET /ping`. */
async function serve(value: unknown): Promise<string> {
  app = Fastify();
  app.get('/value', async (_req, reply) => sendJsonInSlices(reply, value));
  app.get('/ping', async () => ({ pong: true }));
  return app.listen({ port: 0, host: '127.0.0.1' });
}

async function get(url: string): Promise<{ headers: Headers; body: string }> {
  const res = await fetch(url);
  expect(res.status).toBe(200);
  return { headers: res.headers, body: await res.text() };
}

const day = new Date(Date.UTC(2026, 11, 5, 23, 30));

/** Values whose JSON has JSON.stringify's rules in it: left-out properties, nulls for what an array cannot hold, toJSON, escapes. */
const TRICKY: Record<string, unknown> = {
  string: 'quote " backslash \\ newline \n nul \u0000 lone surrogate \ud800 emoji 🐘',
  numbers: [0, -0, 1.5e300, NaN, Infinity, -Infinity],
  leftOut: { a: undefined, b: () => 1, c: Symbol('s'), d: null, e: false },
  date: day,
  nullPrototype: Object.assign(Object.create(null) as object, { x: 1, y: [1, 2] }),
  withToJson: { toJSON: () => ({ replaced: true }), hidden: 1 },
  boxed: [new String('s'), new Number(2), new Boolean(false)],
  empty: [[], {}, ''],
  long: Array.from({ length: 200 }, (_, i) => (i % 5 === 0 ? undefined : i % 5 === 1 ? () => i : i % 5 === 2 ? { i, at: day, nested: Array.from({ length: 70 }, (_, j) => j) } : i % 5 === 3 ? [i, undefined] : `s${i}`)),
  nested: { deeper: { longer: Array.from({ length: 100 }, (_, i) => ({ i, skip: undefined })) } },
};

describe('sendJsonInSlices', () => {
  it("writes JSON.stringify's text, byte for byte", async () => {
    for (const value of [TRICKY, Object.values(TRICKY), TRICKY['long'], 'text', 42, null, [], {}]) {
      const url = await serve(value);
      const { headers, body } = await get(`${url}/value`);
      expect(headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(body).toBe(JSON.stringify(value));
      await app!.close();
      app = null;
    }
  });

  it('sends a small answer whole, with its length', async () => {
    const url = await serve({ groups: Array.from({ length: 100 }, (_, i) => ({ groupId: `g-${i}` })) });
    const { headers, body } = await get(`${url}/value`);
    expect(headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
    expect(headers.get('transfer-encoding')).toBeNull();
    expect(JSON.parse(body)).toEqual({ groups: Array.from({ length: 100 }, (_, i) => ({ groupId: `g-${i}` })) });
  });

  it('writes 100,000 elements a slice a turn: a request sent once the first slice arrived is answered before the last', async () => {
    const value = { groups: Array.from({ length: 100_000 }, (_, i) => ({ groupId: `g-${i}`, members: i % 7 })) };
    const url = new URL(await serve(value));
    const order: string[] = [];
    const chunks: Buffer[] = [];
    const whole = new Promise<{ transferEncoding: string | undefined }>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: '/value' }, (res) => {
        let pinged = false;
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          if (pinged) return;
          pinged = true;
          void get(`${url.origin}/ping`).then(({ body }) => order.push(`ping ${body}`), reject);
        });
        res.on('end', () => {
          order.push('value');
          resolve({ transferEncoding: res.headers['transfer-encoding'] });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end();
    });
    const { transferEncoding } = await whole;
    expect(transferEncoding).toBe('chunked');
    expect(order).toEqual(['ping {"pong":true}', 'value']);
    expect(Buffer.concat(chunks).toString()).toBe(JSON.stringify(value));
  });

  it("makes a LazyArray's elements as they are written, leaving out the undefined ones", async () => {
    const made: number[] = [];
    const url = await serve({ before: 1, items: new LazyArray([0, 1, 2, 3, 4], (i) => (made.push(i), i % 2 === 0 ? { i } : undefined)), after: [] });
    expect(made).toEqual([]);
    expect((await get(`${url}/value`)).body).toBe('{"before":1,"items":[{"i":0},{"i":2},{"i":4}],"after":[]}');
    expect(made).toEqual([0, 1, 2, 3, 4]);
  });

  it('stops making a LazyArray while its client does not read, and for good once the client goes', async () => {
    const ITEMS = 100_000;
    const padding = 'x'.repeat(500);
    let made = 0;
    const url = new URL(await serve({ items: new LazyArray(Array.from({ length: ITEMS }, (_, i) => i), (i) => ((made += 1), { i, padding })) }));
    /** Turns of the event loop until `made` has not moved for 20 of them. */
    const settled = async (): Promise<number> => {
      for (let still = 0, last = -1; still < 20; still = made === last ? still + 1 : 0) {
        last = made;
        await nextTurn();
      }
      return made;
    };
    const client = await new Promise<{ res: import('node:http').IncomingMessage; destroy(): void }>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: '/value' }, (res) => {
        res.once('data', () => {
          res.pause();
          resolve({ res, destroy: () => req.destroy() });
        });
      });
      req.on('error', reject);
      req.end();
    });
    // 50 MB of answer: the sockets' buffers hold a few MB, then the making waits for the reader.
    const paused = await settled();
    expect(paused).toBeLessThan(ITEMS / 2);
    client.destroy();
    const gone = await settled();
    expect(gone).toBeLessThan(ITEMS / 2);
    // The server answers the next request whole.
    made = 0;
    expect(JSON.parse((await get(`${url.origin}/value`)).body).items).toHaveLength(ITEMS);
    expect(made).toBe(ITEMS);
  });

  it('a value JSON cannot write, met past the first slice, ends the answer short instead of throwing out of a turn', async () => {
    const value = Array.from({ length: 30_000 }, (_, i) => (i === 25_000 ? { big: 1n } : i));
    const url = new URL(await serve(value));
    const outcome = await new Promise<string>((resolve) => {
      const req = request({ host: url.hostname, port: url.port, path: '/value' }, (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve('ended'));
        res.on('error', () => resolve('cut short'));
        res.on('aborted', () => resolve('cut short'));
      });
      req.on('error', () => resolve('cut short'));
      req.end();
    });
    expect(outcome).toBe('cut short');
    // The server still answers.
    expect((await get(`${url.origin}/ping`)).body).toBe('{"pong":true}');
  });
});

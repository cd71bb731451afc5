/**
 * A deterministic protocol fuzzer: from a seed, mutated request frames of every API and version
 * the server advertises (bit flips, truncations, huge and negative lengths, inserted bytes,
 * varint garbage, wrong frame sizes), plus frames of random bytes, sent over many connections.
 * A frame the server refuses costs its connection; the fuzzer reconnects and goes on. Used by
 * test/e2e/fuzz.test.ts (`npm test`) and scripts/fuzz.mjs (`npm run fuzz`, a longer run).
 */
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';
import { Writer } from '../../src/protocol/primitives.js';
import { API_CODECS, API_NAMES } from '../../src/protocol/messages/index.js';
import { prng } from './prng.js';


interface Codec {
  FIRST_FLEXIBLE_VERSION: number;
  encode(w: Writer, version: number, body: unknown): void;
}

/** The request body a codec module defaults to (`defaultXRequest()`), with one entry in each top-level array so nested parsers run too. */
function seedBody(apiKey: number): unknown {
  const module = API_CODECS[apiKey as keyof typeof API_CODECS].request as unknown as Record<string, unknown>;
  const name = `default${API_NAMES[apiKey]}Request`;
  const body = (module[name] as () => Record<string, unknown>)();
  for (const [key, value] of Object.entries(body)) {
    if (!Array.isArray(value)) continue;
    // The element default of an array field: `default<Request><Field singular>()` when generated.
    const element = Object.entries(module).find(([n, f]) => n.startsWith(name) && n !== name && typeof f === 'function' && n.toLowerCase().includes(key.slice(0, 4).toLowerCase()));
    if (element) body[key] = [(element[1] as () => unknown)()];
  }
  return body;
}

/** A valid request frame (size prefix included) for `apiKey` at `version`. */
export function seedFrame(apiKey: number, version: number, correlationId: number): Buffer {
  const codec = API_CODECS[apiKey as keyof typeof API_CODECS].request as unknown as Codec;
  const flexible = codec.FIRST_FLEXIBLE_VERSION >= 0 && version >= codec.FIRST_FLEXIBLE_VERSION;
  const w = new Writer();
  w.int32(0);
  w.int16(apiKey);
  w.int16(version);
  w.int32(correlationId);
  w.nullableString('fuzz', false);
  if (flexible) w.uvarint(0);
  try {
    codec.encode(w, version, seedBody(apiKey));
  } catch {
    // a default that this version cannot encode: the header alone is still a fine seed
  }
  const out = Buffer.from(w.finish());
  out.writeInt32BE(out.length - 4, 0);
  return out;
}

const HUGE = [0x7fffffff, 0xffffffff, 0x80000000, 0x00010000];

/** One mutation of `frame` (a new buffer); `random` drives every choice. */
export function mutate(frame: Buffer, random: () => number): Buffer {
  const pick = (n: number): number => Math.floor(random() * n);
  const body = Buffer.from(frame);
  const at = (): number => 4 + pick(Math.max(1, body.length - 4));
  let out: Buffer;
  switch (pick(8)) {
    case 0: // bit flips
      for (let i = 0, n = 1 + pick(8); i < n; i++) body[at()]! ^= 1 << pick(8);
      out = body;
      break;
    case 1: // truncation
      out = body.subarray(0, 4 + pick(body.length - 3));
      break;
    case 2: { // a huge, negative or null length somewhere
      const pos = at();
      if (pos + 4 <= body.length) body.writeUInt32BE(HUGE[pick(HUGE.length)]!, pos);
      out = body;
      break;
    }
    case 3: { // an int16 length of -1 or 0x7fff
      const pos = at();
      if (pos + 2 <= body.length) body.writeUInt16BE(pick(2) === 0 ? 0xffff : 0x7fff, pos);
      out = body;
      break;
    }
    case 4: { // inserted random bytes
      const pos = at();
      const extra = Buffer.from(Array.from({ length: 1 + pick(32) }, () => pick(256)));
      out = Buffer.concat([body.subarray(0, pos), extra, body.subarray(pos)]);
      break;
    }
    case 5: { // an unterminated or huge unsigned varint (compact lengths, tagged fields)
      const pos = at();
      out = Buffer.concat([body.subarray(0, pos), Buffer.from([0xff, 0xff, 0xff, 0xff, pick(2) === 0 ? 0x0f : 0xff]), body.subarray(pos)]);
      break;
    }
    case 6: // random bytes after a plausible header
      out = Buffer.concat([body.subarray(0, Math.min(body.length, 14)), Buffer.from(Array.from({ length: pick(200) }, () => pick(256)))]);
      break;
    default: // random bytes only
      out = Buffer.from(Array.from({ length: 4 + pick(200) }, () => pick(256)));
      out.writeInt32BE(out.length - 4, 0);
      return out;
  }
  out = Buffer.from(out);
  // Mostly a consistent size prefix (so the body parser is what gets tested), sometimes a wrong one.
  const r = random();
  out.writeInt32BE(r < 0.9 ? out.length - 4 : r < 0.95 ? Math.max(0, out.length - 4 - 1 - pick(8)) : out.length - 4 + 1 + pick(64), 0);
  return out;
}

export interface FuzzStats {
  sent: number;
  /** Connections the server closed (a refused frame) or we dropped (no answer in time). */
  connections: number;
  answered: number;
}

/**
 * Sends `inputs` frames derived from `seeds` (apiKey and version pairs) to `port` over `lanes`
 * concurrent connections; each lane waits for an answer, a close, or `answerWaitMs` before its
 * next frame. Never throws for what the server does.
 */
export async function fuzz(options: { port: number; seed: number; inputs: number; seeds: Array<[number, number]>; lanes?: number; answerWaitMs?: number }): Promise<FuzzStats> {
  const random = prng(options.seed);
  const lanes = options.lanes ?? 16;
  const answerWaitMs = options.answerWaitMs ?? 200;
  const stats: FuzzStats = { sent: 0, connections: 0, answered: 0 };
  const frames = options.seeds.map(([apiKey, version], i) => seedFrame(apiKey, version, i + 1));
  // Inputs are drawn up front from the one PRNG so that the set sent does not depend on timing.
  const next = (): Buffer | null => {
    if (stats.sent >= options.inputs) return null;
    stats.sent++;
    return mutate(frames[Math.floor(random() * frames.length)]!, random);
  };
  const lane = async (): Promise<void> => {
    let socket: Socket | null = null;
    for (let frame = next(); frame !== null; frame = next()) {
      if (socket === null || socket.destroyed) {
        socket = connect({ port: options.port, host: '127.0.0.1' });
        socket.on('error', () => {});
        try {
          await once(socket, 'connect');
        } catch {
          socket = null;
          continue;
        }
        stats.connections++;
      }
      const s: Socket = socket;
      const outcome = await new Promise<'answer' | 'closed' | 'silent'>((resolve) => {
        const done = (what: 'answer' | 'closed' | 'silent'): void => {
          clearTimeout(timer);
          s.off('data', onData);
          s.off('close', onClose);
          resolve(what);
        };
        const onData = (): void => done('answer');
        const onClose = (): void => done('closed');
        const timer = setTimeout(() => done('silent'), answerWaitMs);
        s.on('data', onData);
        s.on('close', onClose);
        s.write(frame);
      });
      if (outcome === 'answer') stats.answered++;
      // A frame still parked (a long poll, a JoinGroup, a frame shorter than its size) holds its
      // connection: drop it, as a client that gives up would.
      if (outcome !== 'answer') {
        s.destroy();
        socket = null;
      }
    }
    socket?.destroy();
  };
  await Promise.all(Array.from({ length: lanes }, () => lane()));
  return stats;
}

// Shared pieces of the benchmarks: a minimal Kafka client on our generated codecs (from the
// build in dist/, so run `npm run build` first), a child server process, statistics and the
// machine description. Plain ESM JavaScript so `node bench/run.mjs` needs no TypeScript loader.
import { spawn, execFileSync } from 'node:child_process';
import { connect } from 'node:net';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Reader, Writer } from '../dist/protocol/primitives.js';
import { API_CODECS } from '../dist/protocol/messages/index.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * The child processes the benchmarks started that have not exited. A measurement that throws ends
 * the run before its own stops; they are killed when this process exits, however it exits (an
 * error, Ctrl-C, SIGTERM), so no server is left holding a port and a core.
 */
const liveChildren = new Set();
process.on('exit', () => {
  for (const child of liveChildren) child.kill('SIGKILL');
});
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) process.once(signal, () => process.exit(code));

/** `child_process.spawn`, the child killed if still running when this process exits (see `liveChildren`). */
export function spawnChild(command, args, options) {
  const child = spawn(command, args, options);
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  return child;
}
export const CLI = fileURLToPath(new URL('../dist/cli.cjs', import.meta.url));

export function envInt(name, fallback) {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isFinite(n)) throw new Error(`${name} must be a number, got "${v}"`);
  return n;
}

export function envList(name, fallback) {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  return v.split(',').map((s) => s.trim()).filter(Boolean);
}

/**
 * One TCP connection speaking Kafka, responses decoded with our codecs. `send` may be called
 * again before the previous answer (pipelining): responses come back in request order, as a
 * Kafka broker answers a connection's requests.
 */
export class BenchClient {
  #buffered = Buffer.alloc(0);
  /** Chunks read after `#buffered`, not yet joined to it, and their bytes. */
  #chunks = [];
  #chunkBytes = 0;
  /** Requests sent and not yet answered, oldest first. */
  #waiting = [];
  #correlationId = 0;
  /** The server's ApiVersions answer as apiKey -> { minVersion, maxVersion } (a promise), once asked. */
  #advertised = null;

  constructor(socket) {
    this.socket = socket;
    socket.setNoDelay(true);
    socket.on('data', (chunk) => {
      // Chunks are joined once a frame is whole: joining at each one copied a 100 MB answer
      // ~1,600 times (the client, not the server, then took most of a big request's time).
      this.#chunks.push(chunk);
      this.#chunkBytes += chunk.length;
      this.#drain();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      const waiting = this.#waiting;
      this.#waiting = [];
      for (const w of waiting) w.reject(new Error('connection closed'));
    });
  }

  /** The size of the next frame (0 while its size is not in yet: join what there is). */
  #wanted() {
    if (this.#buffered.length >= 4) return this.#buffered.readInt32BE(0);
    const head = Buffer.concat([this.#buffered, ...this.#chunks.slice(0, 4)]);
    return head.length >= 4 ? head.readInt32BE(0) : 0;
  }

  static async connect(port, host = '127.0.0.1') {
    const socket = connect({ port, host });
    await once(socket, 'connect');
    return new BenchClient(socket);
  }

  #drain() {
    if (this.#chunks.length > 0 && this.#buffered.length + this.#chunkBytes >= 4 + this.#wanted()) {
      this.#buffered = Buffer.concat([this.#buffered, ...this.#chunks]);
      this.#chunks = [];
      this.#chunkBytes = 0;
    }
    while (this.#waiting.length > 0 && this.#buffered.length >= 4) {
      const size = this.#buffered.readInt32BE(0);
      if (this.#buffered.length < 4 + size) return;
      const frame = this.#buffered.subarray(4, 4 + size);
      this.#buffered = this.#buffered.subarray(4 + size);
      this.#waiting.shift().resolve(frame);
    }
  }

  /**
   * Sends `body` as `apiKey` v`version`; resolves with the decoded response, or with `decode(reader)`
   * when given (a reader past the response header: for answers our strict codecs refuse).
   */
  send(apiKey, version, body, decode) {
    const codec = API_CODECS[apiKey];
    const flexible = codec.request.FIRST_FLEXIBLE_VERSION >= 0 && version >= codec.request.FIRST_FLEXIBLE_VERSION;
    const w = new Writer(256);
    w.int32(0);
    w.int16(apiKey);
    w.int16(version);
    const correlationId = ++this.#correlationId;
    w.int32(correlationId);
    w.nullableString('bench', false);
    if (flexible) w.uvarint(0);
    codec.request.encode(w, version, body);
    const out = Buffer.from(w.finish());
    out.writeInt32BE(out.length - 4, 0);
    return new Promise((resolve, reject) => {
      this.#waiting.push({
        resolve: (frame) => {
          try {
            const r = new Reader(frame);
            const got = r.int32();
            if (got !== correlationId) throw new Error(`correlation id ${got}, expected ${correlationId}`);
            if (flexible && apiKey !== 18) r.taggedFields(() => false);
            resolve(decode ? decode(r) : codec.response.decode(r, version));
          } catch (err) {
            reject(err);
          }
        },
        reject,
      });
      this.socket.write(out);
      this.#drain();
    });
  }

  /**
   * The version of `apiKey` to send this server: `preferred`, or the highest it advertises below
   * that (from one ApiVersions v0 per connection, which every server answers); null when it
   * serves none at or below `preferred` (librdkafka's mock has DeleteGroups v0-1 only).
   */
  async usableVersion(apiKey, preferred) {
    this.#advertised ??= this.send(18, 0, {}).then((r) => new Map(r.apiKeys.map((k) => [k.apiKey, k])));
    const range = (await this.#advertised).get(apiKey);
    if (!range || range.minVersion > preferred) return null;
    return Math.min(preferred, range.maxVersion);
  }

  close() {
    this.socket.destroy();
  }
}

/**
 * The environment of the Node processes the benchmarks measure: this one's without
 * NODE_EXTRA_CA_CERTS, which makes Node read a CA bundle at every start (~90 ms of CPU and ~1.6 MiB
 * of RSS on the bench machine) while no server here makes outbound TLS: it measured the
 * environment, not the server.
 */
export function benchNodeEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
}

/** Starts `node dist/cli.cjs` (or `cli`) with `args`; resolves at its ready line with { child, port, lines } (its stdout lines up to that one). */
export async function startCliServer(args, { timeoutMs = 120_000, cli = CLI } = {}) {
  const child = spawnChild(process.execPath, [...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? []), cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: benchNodeEnv() });
  const lines = [];
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ready line; stderr: ${stderr}`)), timeoutMs);
    child.on('exit', (code) => reject(new Error(`server exited with ${code} before ready; stderr: ${stderr}`)));
    const lineReader = createInterface({ input: child.stdout });
    lineReader.on('line', (line) => {
      lines.push(line);
      const m = /ready on ([^"\s]+):(\d+)/.exec(line);
      if (m) {
        clearTimeout(timer);
        // The rest of its log is drained unread: splitting and keeping every line would cost this
        // process (the clients') CPU per line, and a reader slower than the server blocks its writes.
        lineReader.close();
        child.stdout.resume();
        resolve({ child, port: Number(m[2]), lines });
      }
    });
  });
}

export async function stopChild(child, signal = 'SIGTERM') {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  child.kill(signal);
  const [code] = await once(child, 'exit');
  return code;
}

/** ApiVersions v0 request, correlation id 1, client id "bench". */
const API_VERSIONS_V0 = (() => {
  const clientId = Buffer.from('bench');
  const b = Buffer.alloc(4 + 2 + 2 + 4 + 2 + clientId.length);
  b.writeInt32BE(b.length - 4, 0);
  b.writeInt16BE(18, 4);
  b.writeInt16BE(0, 6);
  b.writeInt32BE(1, 8);
  b.writeInt16BE(clientId.length, 12);
  clientId.copy(b, 14);
  return b;
})();

/** Resolves true when one ApiVersions round trip to `port` succeeds, false on refusal. */
export function tryApiVersions(port) {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    let got = Buffer.alloc(0);
    socket.on('connect', () => socket.write(API_VERSIONS_V0));
    socket.on('data', (d) => {
      got = Buffer.concat([got, d]);
      if (got.length >= 4 && got.length >= 4 + got.readInt32BE(0)) {
        socket.destroy();
        resolve(got.readInt32BE(4) === 1 && got.readInt16BE(8) === 0);
      }
    });
    socket.on('error', () => resolve(false));
    socket.on('close', () => resolve(false));
  });
}

/** utime + stime of a process in ms (Linux /proc), or null elsewhere. */
export function processCpuMs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14, 15)
    return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

/**
 * Waits until the processes `pids` are all quiet: each used at most `maxPercent` of a core over the
 * last `intervalMs` (their utime + stime, /proc). Resolves with the milliseconds waited, or null
 * when `timeoutMs` passed first (or /proc has no such figures). Why: a server keeps working after a
 * load ends (ours compacts `__consumer_offsets` after a burst of commits, about 2 s of CPU after
 * 3 s of 16 x 16), and on a 2-core machine that work slows whichever server is measured next.
 */
export async function waitForQuiet(pids, { intervalMs = 250, maxPercent = 10, timeoutMs = 15_000 } = {}) {
  const start = Date.now();
  let before = pids.map(processCpuMs);
  if (before.some((v) => v === null)) return null;
  for (;;) {
    await new Promise((r) => setTimeout(r, intervalMs));
    const now = pids.map(processCpuMs);
    if (now.some((v) => v === null)) return null;
    if (now.every((v, i) => v - before[i] <= (intervalMs * maxPercent) / 100)) return Date.now() - start;
    if (Date.now() - start >= timeoutMs) return null;
    before = now;
  }
}

/** Resident set size of a process in bytes (Linux /proc VmRSS), or null elsewhere. */
export function processRssBytes(pid) {
  const kb = /^VmRSS:\s*(\d+) kB/m.exec(readFileSafe(`/proc/${pid}/status`))?.[1];
  return kb === undefined ? null : Number(kb) * 1024;
}

/** Percentile (0-100) of a sorted array of numbers (nearest rank). */
export function percentile(sorted, p) {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function fmt(n, digits = 2) {
  if (n === null || n === undefined || Number.isNaN(n)) return 'n/a';
  if (Math.abs(n) >= 1000) return Math.round(n).toLocaleString('en-US');
  return n.toFixed(digits);
}

function sh(cmd, args) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** nproc, CPU model, memory, Node version, and the device/filesystem holding `dir`. */
export function machineDescription(dir) {
  const model = (readFileSafe('/proc/cpuinfo').match(/^model name\s*:\s*(.*)$/m)?.[1] ?? cpus()[0]?.model ?? 'unknown').trim();
  const memKb = Number(readFileSafe('/proc/meminfo').match(/^MemTotal:\s*(\d+)/m)?.[1] ?? 0);
  const df = sh('df', ['-T', dir]).split('\n')[1]?.split(/\s+/) ?? [];
  return {
    nproc: sh('nproc', []) || String(cpus().length),
    cpu: model,
    memory: memKb ? `${(memKb / 1024 / 1024).toFixed(1)} GiB` : 'unknown',
    node: process.version,
    kernel: sh('uname', ['-r']),
    disk: df.length >= 2 ? `${df[0]} (${df[1]})` : 'unknown',
  };
}

function readFileSafe(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

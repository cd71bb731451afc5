import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type StartServerOptions, type ServerHandle } from '../../src/index.js';

/** A fresh temp data directory; removed by the returned cleanup. */
export function tempDataDir(prefix = 'kmc-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Log level of the servers tests start: silent, because many tests provoke errors on purpose and
 * their log lines would read as failures; `KMC_TEST_LOG_LEVEL=warn npm test` shows them.
 */
export const TEST_LOG_LEVEL = process.env['KMC_TEST_LOG_LEVEL'] ?? 'silent';

/** Starts a real server on a free port with its own temp data directory. */
export async function startTestServer(options: StartServerOptions = {}): Promise<ServerHandle & { dataDir: string; stop: () => Promise<void> }> {
  const data = tempDataDir();
  const server = await startServer({ port: 0, dataDir: data.dir, logLevel: TEST_LOG_LEVEL, ...options });
  return Object.assign(server, {
    dataDir: data.dir,
    async stop() {
      await server.close();
      data.remove();
    },
  });
}

/**
 * Starts a real server on a free port for a test that may stop it and start another on the same
 * data directory: its own temp directory unless `options.dataDir` is given (removed at cleanup),
 * and an idempotent `close`; both go into `cleanups` (run last first).
 */
export async function startClosableServer(
  cleanups: Array<() => Promise<void> | void>,
  options: StartServerOptions = {},
  prefix = 'kmc-',
): Promise<{ server: ServerHandle; close: () => Promise<void>; dataDir: string }> {
  const data = options.dataDir === undefined ? tempDataDir(prefix) : null;
  const dataDir = options.dataDir ?? data!.dir;
  // Before the start: a test whose start is refused still gets its directory removed.
  cleanups.push(() => data?.remove());
  const server = await startServer({ port: 0, logLevel: TEST_LOG_LEVEL, ...options, dataDir });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await server.close();
  };
  cleanups.push(close);
  return { server, close, dataDir };
}

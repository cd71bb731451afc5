/**
 * Memory returns after a burst (issue #16 item 6): large request frames dropped with their
 * connections are given back to the system without anything else happening on the server, by the
 * collection the command line runs after big releases (src/util/idle-collection.ts). Waits are for
 * the RSS to move, read from /proc, never for a time.
 */
import { readFileSync } from 'node:fs';
import * as net from 'node:net';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { kill, startCli, type CliServer } from '../support/cli-process.js';

const MiB = 1024 * 1024;
const rssBytes = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) * 1024;

/** Resolves once `test()` holds, polling; the backstop is for a server that never gets there, not a speed limit. */
async function until(test: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let server: CliServer | undefined;
afterEach(async () => {
  if (server) await kill(server, 'SIGKILL');
  server = undefined;
});

describe('idle collection', () => {
  it('frames of 50 MiB dropped with their connections leave the RSS once the server is idle', async () => {
    server = await startCli(['--in-memory', '--port', '0']);
    const pid = server.process.pid!;
    const idle = rssBytes(pid);
    const frameBytes = 50 * MiB;
    const sockets: net.Socket[] = [];
    for (let i = 0; i < 4; i++) {
      const socket = net.connect(server.port, '127.0.0.1');
      await once(socket, 'connect');
      const prefix = Buffer.alloc(4);
      prefix.writeInt32BE(frameBytes);
      socket.write(prefix);
      // All but the frame's last byte: the server holds the whole frame's buffer, waiting.
      socket.write(Buffer.alloc(frameBytes - 1));
      sockets.push(socket);
    }
    await until(() => rssBytes(pid) > idle + 180 * MiB, 'the four frames were read');
    const held = rssBytes(pid);
    for (const s of sockets) s.destroy();
    await until(() => rssBytes(pid) < idle + 60 * MiB, `RSS back near idle (idle ${idle}, held ${held}, now ${rssBytes(pid)})`);
    expect(rssBytes(pid)).toBeLessThan(held - 120 * MiB);
  }, 180_000);
});

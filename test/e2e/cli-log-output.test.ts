/**
 * The server's log on fd 1 stops when its reader goes away and resumes when writes work again
 * (adversarial trial 12: after one failed write it stayed silent until a restart). The log goes
 * to a FIFO: with no reader a write fails (EPIPE, as on a closed pipe), and a new reader opening
 * the FIFO makes the same fd writable again — a broken output that heals, without root.
 */
import { describe, expect, it } from 'vitest';
import { spawn, execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, constants, openSync } from 'node:fs';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { tempDataDir } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { defaultCreateTopicsRequest, defaultCreatableTopic } from '../../src/protocol/messages/CreateTopicsRequest.js';

const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));

/** A reader of the FIFO (non-blocking open: the server holds the write end); its lines, and a wait for one. */
function fifoReader(path: string) {
  const socket = new Socket({ fd: openSync(path, constants.O_RDONLY | constants.O_NONBLOCK), readable: true, writable: false });
  const lines: string[] = [];
  const waiters: { test: RegExp; resolve: (line: string) => void }[] = [];
  createInterface({ input: socket }).on('line', (line) => {
    lines.push(line);
    for (const w of waiters.filter((w) => w.test.test(line))) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve(line);
    }
  });
  return {
    lines,
    line: (test: RegExp) => new Promise<string>((resolve) => {
      const seen = lines.find((l) => test.test(l));
      if (seen !== undefined) resolve(seen);
      else waiters.push({ test, resolve });
    }),
    /** Closes this reader; resolves once its fd is closed (then the FIFO has no reader). */
    close: async () => {
      socket.destroy();
      if (!socket.closed) await once(socket, 'close');
    },
  };
}

describe.skipIf(process.platform === 'win32')('the server log on a reader that goes away and comes back', () => {
  it('stops with one notice per episode, resumes with the next line once a reader is back, and keeps serving', async () => {
    const tmp = tempDataDir();
    const fifo = join(tmp.dir, 'log.fifo');
    execFileSync('mkfifo', [fifo]);
    let reader = fifoReader(fifo);
    const writeEnd = openSync(fifo, constants.O_WRONLY);
    const child = spawn(process.execPath, [CLI, '--in-memory', '--port', '0', '--no-admin'], { stdio: ['ignore', writeEnd, 'pipe'] });
    closeSync(writeEnd);
    let stderr = '';
    const stderrWaiters: { text: string; count: number; resolve: () => void }[] = [];
    const occurrences = (text: string) => stderr.split(text).length - 1;
    child.stderr!.on('data', (d) => {
      stderr += d;
      for (const w of stderrWaiters.filter((w) => occurrences(w.text) >= w.count)) w.resolve();
    });
    const onStderr = (text: string, count: number) => new Promise<void>((resolve) => (occurrences(text) >= count ? resolve() : stderrWaiters.push({ text, count, resolve })));
    let client: RawClient | null = null;
    try {
      const port = Number(/ready on [^"\s]+:(\d+)/.exec(await reader.line(/ready on /))![1]);
      client = await RawClient.connect(port);
      // The "created topic" line leaves in the check phase of the turn that answered (one write per
      // turn: util/turn-batched-lines.ts). An ApiVersions after it, which logs nothing, is answered in
      // a later turn: once it is back, that line's write has happened (or failed).
      const create = async (name: string) => {
        const res = await client!.send(19, 5, { ...defaultCreateTopicsRequest(), topics: [{ ...defaultCreatableTopic(), name, numPartitions: 1, replicationFactor: 1 }] });
        expect(res.topics[0]!.errorCode).toBe(0);
        expect((await client!.send(18, 3, { clientSoftwareName: 'log-output', clientSoftwareVersion: '1' })).errorCode).toBe(0);
      };
      const STOPPED = 'kafka-mock-coordinator: log output stopped (EPIPE); still serving, trying each line again\n';

      // Episode 1: no reader. The first line's write fails; the later ones fail quietly.
      await reader.close();
      await create('unread-1');
      await onStderr(STOPPED, 1);
      await create('unread-2');
      await create('unread-3');
      // A reader again: the next line arrives, and the resume notice counts the writes lost.
      reader = fifoReader(fifo);
      await create('read-again');
      expect(await reader.line(/read-again/)).toContain('"msg":"created topic"');
      await onStderr('log output resumed', 1);
      expect(reader.lines.some((l) => l.includes('unread-'))).toBe(false);

      // Episode 2: its own notice, once.
      await reader.close();
      await create('unread-4');
      await onStderr(STOPPED, 2);
      await create('unread-5');
      expect(stderr).toBe(`${STOPPED}kafka-mock-coordinator: log output resumed (3 writes lost)\n${STOPPED}`);
      expect(child.exitCode).toBe(null);
      client.close();
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      expect(code).toBe(0);
    } finally {
      client?.close();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
      await reader.close();
      tmp.remove();
    }
  });
});

/**
 * Under a manual clock each line of the server's log also carries `serverTime`, the server clock's
 * time, beside pino's wall-clock `time` (a new-user trial read a transaction timeout's line against
 * the wrong clock); under the system clock lines are as pino writes them.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../src/index.js';
import { RawClient } from '../support/raw-client.js';
import { createTopic } from '../support/raw-transactions.js';
import { kill, startCli } from '../support/cli-process.js';

/** A logger at info whose lines are collected, parsed. */
function collectingLogger(): { logger: pino.Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

const created = (lines: Array<Record<string, unknown>>, topic: string) => lines.find((l) => l['msg'] === 'created topic' && l['topic'] === topic);

describe('the server clock in the log', () => {
  it('a manual clock: each line has serverTime, which an advance moves', async () => {
    const { logger, lines } = collectingLogger();
    const start = Date.UTC(2020, 0, 1);
    const server = await startServer({ port: 0, inMemory: true, clock: 'manual', clockStartMs: start, logger });
    let raw = await RawClient.connect(server.port);
    try {
      await createTopic(raw, 'before-advance', 1);
      raw.close();
      await server.clock.advance(86_400_000);
      raw = await RawClient.connect(server.port);
      await createTopic(raw, 'after-advance', 1);
      expect(created(lines, 'before-advance')).toMatchObject({ serverTime: '2020-01-01T00:00:00.000Z', time: expect.any(Number) });
      expect(created(lines, 'after-advance')).toMatchObject({ serverTime: '2020-01-02T00:00:00.000Z' });
      expect(created(lines, 'after-advance')!['time']).toBeGreaterThan(start + 86_400_000 * 365);
    } finally {
      raw.close();
      await server.close();
    }
  });

  it('the command line: its own lines (ready, shutting down, stopped) carry serverTime too', async () => {
    const server = await startCli(['--in-memory', '--port', '0', '--no-admin', '--clock', 'manual']);
    expect(await kill(server, 'SIGTERM')).toBe(0);
    const lines = server.lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => [String(l['msg']).replace(/:\d+$/, ':PORT'), typeof l['serverTime']])).toEqual([
      ['kafka-mock-coordinator ready on localhost:PORT', 'string'],
      ['shutting down', 'string'],
      ['stopped', 'string'],
    ]);
  });

  it('the system clock: no serverTime', async () => {
    const { logger, lines } = collectingLogger();
    const server = await startServer({ port: 0, inMemory: true, logger });
    const raw = await RawClient.connect(server.port);
    try {
      await createTopic(raw, 'system-clock', 1);
      expect(created(lines, 'system-clock')).toBeDefined();
      expect(created(lines, 'system-clock')).not.toHaveProperty('serverTime');
    } finally {
      raw.close();
      await server.close();
    }
  });
});

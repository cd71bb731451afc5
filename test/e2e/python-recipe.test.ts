/**
 * The README's recipe for a Python test suite (test/clients/python/mock_broker.py): a Python
 * program starts the built server itself (`node dist/cli.cjs --in-memory --port 0 --admin-port 0
 * --stop-when-stdin-closes`), reads the ready line's bootstrap address and admin URL, produces and
 * consumes with confluent-kafka through a fault rule it added over the admin API, and stops the
 * server on close. Skipped (test/support/provision.ts says why) without python3.
 */
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { python, runPython } from '../support/python.js';

const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));
const SCRIPT = fileURLToPath(new URL('../clients/python/mock_broker_recipe.py', import.meta.url));

it.skipIf(python === null)('MockBroker starts the server for a Python suite, which consumes through a fault rule; close stops it', async () => {
  const run = await runPython([SCRIPT, 'node', CLI], 120_000);
  expect([run.code, run.stderr.includes('Traceback')]).toEqual([0, false]);
  const ev = Object.fromEntries(run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>).map((e) => [e['event'] as string, e]));
  expect(ev['started']).toEqual({ event: 'started', bootstrap: expect.stringMatching(/^localhost:\d+$/), admin: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
  // The first OffsetCommit was answered COORDINATOR_NOT_AVAILABLE; librdkafka found the coordinator again and committed.
  expect(ev['consumed']).toEqual({ event: 'consumed', values: ['v0', 'v1', 'v2'], committed: [[0, 3]], ruleFired: 1, rulesLeft: 0 });
  // fault() in a with block: the rule is there inside it; advance_clock() moves the manual clock.
  expect(ev['manual']).toEqual({ event: 'manual', advanced: 60_000, ruleInside: true, exitCode: 0 });
  expect(ev['closed']).toEqual({ event: 'closed', exitCode: 0 });
  // restart() on a data directory: the same address, the records kept, the producer carrying on.
  expect(ev['restarted']).toEqual({ event: 'restarted', sameBootstrap: true, unsent: 0, values: ['before0', 'before1', 'before2', 'after0', 'after1', 'after2'] });
  // With --brokers 3, each broker's port by id from the ready line.
  expect(ev['brokers']).toEqual({ event: 'brokers', ids: [1, 2, 3], firstIsBootstrap: true, consecutive: [0, 1, 2], samePortsAfterRestart: true });
});

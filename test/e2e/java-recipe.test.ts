/**
 * The README's recipe for a JVM test suite (test/clients/java/MockBroker.java): a Java program starts
 * the built server itself as a child process (`node dist/cli.cjs --in-memory --port 0 --admin-port 0
 * --stop-when-stdin-closes`), reads the ready line's bootstrap address and admin URL, consumes with
 * kafka-clients 4.3.1 through a fault rule it added over the admin API, and stops the server on close;
 * then a server on a data directory (`--data-dir` instead of `--in-memory`) restarted on the same
 * ports under a live producer.
 * Skipped (test/support/provision.ts says why) without java and mvn.
 */
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { expectOk, javaClasspath, runJava } from '../support/java.js';

const CLI = fileURLToPath(new URL('../../dist/cli.cjs', import.meta.url));

it.skipIf(javaClasspath === null)('MockBroker starts the server for a JVM suite, which consumes through a fault rule; close stops it', async () => {
  const run = expectOk(await runJava(javaClasspath!, 'MockBrokerRecipe', [CLI]));
  const ev = Object.fromEntries(run.events.map((e) => [e['event'] as string, e]));
  expect(ev['started']).toEqual({ event: 'started', bootstrap: expect.stringMatching(/^localhost:\d+$/), admin: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
  // The first OffsetCommit was answered COORDINATOR_NOT_AVAILABLE; commitSync found the coordinator again and committed.
  expect(ev['consumed']).toEqual({ event: 'consumed', consumed: 3, committed: { '0': 3 }, ruleFired: 1, rulesLeft: false });
  // advanceClock() moves the manual clock.
  expect(ev['manual']).toEqual({ event: 'manual', advanced: 60_000 });
  expect(ev['log']).toEqual({ event: 'log', createdTopic: true });
  expect(ev['closed']).toEqual({ event: 'closed', childrenLeft: 0 });
  // Its closes printed nothing: the thread reading the server's log ends quietly when the process does.
  expect(run.stderr).not.toMatch(/Exception in thread|Stream closed/);
  // On a data directory, restart() brings the server back on the same address with its records and
  // offsets, and the producer created before it carries on.
  // A fault rule ends with the process it was added to; the restarted server's first rule is f1 again,
  // and closing the old handle (f1 too) leaves it alone.
  expect(ev['restarted']).toEqual({
    event: 'restarted',
    rules: 'f1 f1 ended kept',
    sameBootstrap: true,
    values: ['before0', 'before1', 'before2', 'after0', 'after1', 'after2'],
    committed: { '0': 3 },
  });
  // With --brokers 3, each broker's port by id from the ready line.
  expect(ev['brokers']).toEqual({ event: 'brokers', ids: [1, 2, 3], firstIsBootstrap: true, bootstrapServers: true });
});

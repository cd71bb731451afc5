/**
 * Fault rules on the transactional APIs against Java kafka-clients 4.3.1's transactional producer
 * (transaction version 2: EndTxn v5 bumps the epoch; test/clients/java TxnCommits commits two
 * transactions with offsets): CONCURRENT_TRANSACTIONS three times on EndTxn (the producer retries
 * and commits), an EndTxn applied whose response is lost (the producer retries it on a new
 * connection and the coordinator answers the retry of a completed commit with success and the
 * bumped epoch, as Kafka's `TransactionCoordinator.endTransaction`), and the coordinator of the
 * transactional id moved to another broker while an EndTxn is in flight (NOT_COORDINATOR, then
 * FindCoordinator names the new one). Each time every record is committed exactly once.
 */
import { expect, it } from 'vitest';
import { describeJava, expectOk, javaClasspath, runJava } from '../support/java.js';
import { startTestServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { txnStateName } from '../../src/transactions/transaction-state.js';

const classpath = javaClasspath!;
const committedValues = ['t0-0', 't0-1', 't0-2', 't1-0', 't1-1', 't1-2'];

/** Runs TxnCommits (two transactions) for `id`; its events. */
async function commitTwo(bootstrap: string, id: string) {
  const run = expectOk(await runJava(classpath, 'TxnCommits', [bootstrap, `${id}-out`, `${id}-group`, id, '2']));
  expect(run.events.filter((e) => e['event'] === 'committed').map((e) => e['transaction']), run.stdout).toEqual([0, 1]);
  const read = run.events.find((e) => e['event'] === 'read')!;
  expect(read['readCommitted']).toEqual(committedValues);
  expect(read['committed']).toBe(2);
  return run;
}

describeJava('fault rules on the transactional APIs (Java producer, transaction version 2)', () => {
  it('CONCURRENT_TRANSACTIONS three times on EndTxn: the producer retries and commits', async () => {
    const server = await startTestServer();
    try {
      const rule = server.faults.add({
        match: { api: 'EndTxn', transactionalId: 'jf-ct' },
        action: { type: 'errors', errors: ['CONCURRENT_TRANSACTIONS', 'CONCURRENT_TRANSACTIONS', 'CONCURRENT_TRANSACTIONS'] },
      });
      await commitTwo(server.bootstrap, 'jf-ct');
      expect(rule.fired).toBe(3);
      const ends = server.faults.requests({ api: 'EndTxn', transactionalId: 'jf-ct' });
      expect(ends.map((e) => [e.version, e.error])).toEqual([[5, 'CONCURRENT_TRANSACTIONS'], [5, 'CONCURRENT_TRANSACTIONS'], [5, 'CONCURRENT_TRANSACTIONS'], [5, null], [5, null]]);
      await server.broker.transactions.flush();
      expect(txnStateName(server.broker.transactions.get('jf-ct')!.state)).toBe('CompleteCommit');
    } finally {
      await server.stop();
    }
  });

  it('an EndTxn applied but its response lost: the retried EndTxn answers the completed commit with success, nothing is committed twice', async () => {
    const server = await startTestServer();
    try {
      const rule = server.faults.add({ match: { api: 'EndTxn', transactionalId: 'jf-lost' }, action: { type: 'close', when: 'after' } });
      await commitTwo(server.bootstrap, 'jf-lost');
      expect(rule.fired).toBe(1);
      // The first commit was applied (its connection closed without an answer); its retry, on a new connection, succeeded.
      const ends = server.faults.requests({ api: 'EndTxn', transactionalId: 'jf-lost' });
      expect(ends.map((e) => [e.outcome, e.error])).toEqual([['closed', null], ['response', null], ['response', null]]);
      expect(ends[1]!.connectionId).not.toBe(ends[0]!.connectionId);
      // Two transactions: the epoch went up once per EndTxn applied, not for the retry.
      await server.broker.transactions.flush();
      const txn = server.broker.transactions.get('jf-lost')!;
      expect(txnStateName(txn.state)).toBe('CompleteCommit');
      const init = server.faults.requests({ api: 'InitProducerId', transactionalId: 'jf-lost' });
      expect(init).toHaveLength(1);
      expect(txn.producerEpoch).toBe(2);
    } finally {
      await server.stop();
    }
  });

  it('the coordinator of the transactional id moves while an EndTxn is in flight: NOT_COORDINATOR, then the new coordinator commits', async () => {
    const server = await startTestServer({ brokers: 3, adminPort: 0 });
    const raws: RawClient[] = [];
    try {
      const id = 'jf-move';
      const from = server.cluster.transactionCoordinatorOf(id);
      const to = server.cluster.brokers().map((b) => b.id).find((b) => b !== from)!;
      // The first EndTxn is held 200 ms (real time); the coordinator moves as the rule fires, before the handler runs.
      const hold = server.faults.add({ match: { api: 'EndTxn', transactionalId: id }, action: { type: 'delay', ms: 200 } });
      // Counts the EndTxn requests the new coordinator receives (fires with no effect).
      const atNew = server.faults.add({ match: { api: 'EndTxn', transactionalId: id, brokerId: to }, action: { type: 'delay', ms: 0 }, times: 'unlimited' });
      const running = runJava(classpath, 'TxnCommits', [server.bootstrap, `${id}-out`, `${id}-group`, id, '2']);
      await hold.waitFired(1, { timeoutMs: 120_000 });
      expect(server.cluster.moveTransactionCoordinator(id, to)).toBe(from);
      const run = expectOk(await running);
      expect(run.events.find((e) => e['event'] === 'read')).toEqual({ event: 'read', readCommitted: committedValues, committed: 2 });
      expect(server.faults.requests({ api: 'EndTxn', transactionalId: id }).map((e) => e.error)).toEqual(['NOT_COORDINATOR', null, null]);
      expect(atNew.info().matched).toBe(2);

      // FindCoordinator (TRANSACTION) names the new broker from any broker; the old one refuses the id's requests.
      const old = await RawClient.connect(server.ports.get(from)!);
      raws.push(old);
      const found = await old.send(10, 4, { key: '', keyType: 1, coordinatorKeys: [id] });
      expect(found.coordinators.map((c) => [c.nodeId, c.errorCode])).toEqual([[to, ErrorCode.NONE]]);
      const txn = server.broker.transactions.get(id)!;
      const refused = await old.send(26, 5, { transactionalId: id, producerId: txn.producerId, producerEpoch: txn.producerEpoch, committed: true });
      expect(refused.errorCode).toBe(ErrorCode.NOT_COORDINATOR);

      // The same move over HTTP, back to the first broker; GET /cluster lists it.
      const moved = await fetch(`${server.admin!.url}/cluster/move-coordinator`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ transactionalId: id, brokerId: from }) });
      expect(await moved.json()).toEqual({ transactionalId: id, previous: to, coordinator: from });
      const cluster = (await (await fetch(`${server.admin!.url}/cluster`)).json()) as { transactionCoordinatorOverrides: Record<string, number> };
      expect(cluster.transactionCoordinatorOverrides).toEqual({ [id]: from });
      const both = await fetch(`${server.admin!.url}/cluster/move-coordinator`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ transactionalId: id, groupId: 'g', brokerId: from }) });
      expect(both.status).toBe(400);
      const back = await old.send(10, 4, { key: '', keyType: 1, coordinatorKeys: [id] });
      expect(back.coordinators[0]!.nodeId).toBe(from);
    } finally {
      for (const r of raws) r.close();
      await server.stop();
    }
  });
});

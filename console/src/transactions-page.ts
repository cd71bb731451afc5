/**
 * `#/transactions`: every transactional id the transaction coordinator knows (what
 * `kafka-transactions.sh list` and `describe` show: state, producer id and epoch, timeout, start,
 * coordinator, the open transaction's partitions); `#/transactions/<id>`: one id with the offsets
 * its open transaction sent to groups, pending until its COMMIT marker.
 */
import { api, ApiError } from './api.js';
import { fill, h, partitions, table, time } from './dom.js';
import type { Page } from './page.js';
import type { TransactionDescription, TransactionSummary } from './types.js';

const link = (transactionalId: string): HTMLAnchorElement => h('a', { href: `#/transactions/${encodeURIComponent(transactionalId)}` }, transactionalId);

const started = (t: TransactionSummary): string => (t.startTime === null ? '-' : time(t.startTime));

/**
 * Ids the list shows at most, the first by id: 100,000 ids (20 MB) took the page most of a minute
 * to show and each refresh a quarter second of the server (adversarial trial 26).
 */
const LIST_LIMIT = 1000;

export function transactionsPage(root: HTMLElement): Page {
  return {
    wants: (notice) => notice.transactions,
    async refresh() {
      const { transactions, total } = await api.get<{ transactions: TransactionSummary[]; total: number }>(`/transactions?limit=${LIST_LIMIT}`);
      const shown = transactions.length < total ? ` The first ${transactions.length} of ${total} by id are listed; an id's page (#/transactions/<id>) shows any, GET /transactions lists all.` : '';
      fill(
        root,
        h('h1', {}, 'Transactions'),
        h('p', { class: 'meta', id: 'transactions-meta' }, `Transactional ids the transaction coordinator knows (expired ones leave after transactional.id.expiration.ms).${shown}`),
        table(
          'transactions',
          ['transactional id', 'state', 'producer id', 'epoch', 'timeout (ms)', 'started', 'last update', 'coordinator', 'partitions'],
          transactions.map((t) => [link(t.transactionalId), t.state, t.producerId, t.producerEpoch, t.timeoutMs, started(t), time(t.lastUpdateTime), t.coordinator, partitions(t.partitions)]),
          'no transactional ids',
        ),
      );
    },
  };
}

export function transactionPage(root: HTMLElement, transactionalId: string): Page {
  // The query form: a path cannot name the ids `.` and `..` (URL parsing folds dot segments).
  const query = `?transactionalId=${encodeURIComponent(transactionalId)}`;
  const body = h('div');
  fill(root, h('h1', {}, 'Transaction ', h('span', { id: 'transactional-id' }, transactionalId)), body);
  return {
    wants: (notice) => notice.transactions,
    async refresh() {
      let t: TransactionDescription;
      try {
        t = await api.get<TransactionDescription>(`/transaction${query}`);
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) {
          fill(body, h('p', { class: 'empty' }, `No transactional id "${transactionalId}" (yet, or expired).`));
          return;
        }
        throw err;
      }
      fill(
        body,
        h(
          'p',
          { class: 'meta', id: 'transaction-header' },
          `${t.state} · producer id ${t.producerId} · epoch ${t.producerEpoch} · timeout ${t.timeoutMs} ms · started ${started(t)} · last update ${time(t.lastUpdateTime)} · coordinator broker ${t.coordinator}`,
        ),
        h('h2', {}, 'Partitions of the transaction'),
        table('transaction-partitions', ['topic', 'partitions'], t.partitions.map((p) => [p.topic, p.partitions.join(', ')]), 'none'),
        h('h2', {}, 'Offsets awaiting its COMMIT marker'),
        table(
          'transaction-offsets',
          ['group', 'topic', 'partition', 'offset', 'metadata'],
          t.pendingOffsets.map((o) => [h('a', { href: `#/groups/${encodeURIComponent(o.groupId)}` }, o.groupId), o.topic, o.partition, o.offset, o.metadata || '-']),
          'none',
        ),
      );
    },
  };
}

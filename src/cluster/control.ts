import type { Logger } from 'pino';
import type { Broker } from '../broker.js';
import { ClusterError, type ClusterBrokerInfo, type ClusterView } from './cluster-state.js';

/**
 * Control of the simulated cluster (`server.cluster`, `POST /cluster/...`, `kafka-mock-coordinator cluster ...`):
 * ```ts
 * const server = await startServer({ port: 0, brokers: 3 });
 * const from = server.cluster.coordinatorOf('g1');
 * server.cluster.moveCoordinator('g1', from === 1 ? 2 : 1);   // the old one answers NOT_COORDINATOR
 * server.cluster.moveTransactionCoordinator('tx-1', 2);        // the same for a transactional id
 * server.cluster.coordinatorLoadInProgress('g1', 2000);        // COORDINATOR_LOAD_IN_PROGRESS for 2 s
 * await server.cluster.stopBroker(2);                          // its listener closes, connections drop
 * await server.cluster.startBroker(2);                         // listening on the same port again
 * server.cluster.moveLeader('orders', 0, 3);                   // NOT_LEADER_OR_FOLLOWER on the old leader
 * ```
 */
export interface ClusterControl {
  /** Broker ids, endpoints and up/down, overrides and load windows. */
  describe(): ClusterView;
  /** Every broker (up or down) with its endpoint. */
  brokers(): ClusterBrokerInfo[];
  /** The broker coordinating `groupId` now. */
  coordinatorOf(groupId: string): number;
  /** The broker leading `topic`-`partition` now (-1 when every broker is down). */
  leaderOf(topic: string, partition: number): number;
  /**
   * Makes `brokerId` the coordinator of `groupId`. The group's state is shared, so members keep
   * their generation; requests to the previous coordinator answer NOT_COORDINATOR and
   * FindCoordinator names the new one. Returns the previous coordinator.
   */
  moveCoordinator(groupId: string, brokerId: number): number;
  /** The broker coordinating `transactionalId` now. */
  transactionCoordinatorOf(transactionalId: string): number;
  /**
   * Makes `brokerId` the coordinator of `transactionalId` (only that id, not the rest of its
   * `__transaction_state` partition). Its state is shared, so an open transaction carries on;
   * the transaction APIs sent to the previous coordinator answer NOT_COORDINATOR and
   * FindCoordinator (key type TRANSACTION) names the new one. Returns the previous coordinator.
   */
  moveTransactionCoordinator(transactionalId: string, brokerId: number): number;
  /**
   * The coordinator of `groupId` (every group when null) answers COORDINATOR_LOAD_IN_PROGRESS to
   * group requests for `durationMs` of real time, as a Kafka coordinator loading its
   * `__consumer_offsets` partition; a classic Heartbeat is answered NONE meanwhile. No member's
   * session runs out during it, and every member's session timer starts again when it ends, as
   * after Kafka's load (`GroupMetadataManager.onLoaded`). 0 ends it. Returns when it ends (ms
   * since the epoch, 0 when ended).
   */
  coordinatorLoadInProgress(groupId: string | null, durationMs: number): { until: number };
  /**
   * Takes a broker down: its listener closes and its connections drop. Its partitions and groups
   * fail over to the next live broker (Metadata and FindCoordinator say so) until it starts again.
   */
  stopBroker(brokerId: number): Promise<void>;
  /** Brings a stopped broker back on the same port; it leads its partitions and groups again. */
  startBroker(brokerId: number): Promise<void>;
  /** Makes `brokerId` the leader of `topic`-`partition`. Returns the previous leader. */
  moveLeader(topic: string, partition: number, brokerId: number): number;
}

/** What the control needs from the server: opening and closing one broker's listener. */
export interface BrokerListeners {
  stop(brokerId: number): Promise<void>;
  start(brokerId: number): Promise<void>;
}

/**
 * Runs a change of the cluster, then gives every partition whose leader it changed a new leader
 * epoch (as the controller's `PartitionChangeBuilder` bumps it on every leader election), written
 * to the partition's `leader-epoch-checkpoint` before this resolves.
 */
async function electing(broker: Broker, change: () => void | Promise<void>): Promise<void> {
  const leaders = (): Map<string, number> => {
    const out = new Map<string, number>();
    for (const t of broker.topics.list()) for (const p of t.partitions) out.set(`${t.name}\u0000${p.index}`, broker.cluster.leaderOf(t.name, p.index));
    return out;
  };
  const before = leaders();
  await change();
  const bumps: Promise<void>[] = [];
  for (const [key, leader] of leaders()) {
    if (before.get(key) === leader) continue;
    const cut = key.lastIndexOf('\u0000');
    const partition = broker.topics.get(key.slice(0, cut))?.partition(Number(key.slice(cut + 1)));
    if (partition) bumps.push(partition.bumpLeaderEpoch(leader));
  }
  await Promise.all(bumps);
}

export function clusterControl(broker: Broker, listeners: BrokerListeners, log: Logger): ClusterControl {
  const { cluster } = broker;
  /** The end of each simulated load (real time), by group id ('' for every group). */
  const loadEnds = new Map<string, ReturnType<typeof setTimeout>>();
  const endLoad = (key: string): void => {
    clearTimeout(loadEnds.get(key));
    loadEnds.delete(key);
  };
  // Stops and starts run one at a time, so a stop racing a start cannot leave a listener behind.
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = queue.then(fn, fn);
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    describe: () => cluster.describe(),
    brokers: () => cluster.brokers(),
    coordinatorOf: (groupId) => cluster.coordinatorOf(groupId),
    leaderOf: (topic, partition) => cluster.leaderOf(topic, partition),
    moveCoordinator(groupId, brokerId) {
      const previous = typeof groupId === 'string' ? cluster.coordinatorOf(groupId) : -1;
      cluster.moveCoordinator(groupId, brokerId);
      log.info({ groupId, from: previous, to: brokerId }, `cluster: coordinator of group ${groupId} moved from broker ${previous} to ${brokerId}`);
      return previous;
    },
    transactionCoordinatorOf: (transactionalId) => cluster.transactionCoordinatorOf(transactionalId),
    moveTransactionCoordinator(transactionalId, brokerId) {
      const previous = typeof transactionalId === 'string' ? cluster.transactionCoordinatorOf(transactionalId) : -1;
      cluster.moveTransactionCoordinator(transactionalId, brokerId);
      log.info({ transactionalId, from: previous, to: brokerId }, `cluster: coordinator of transactional id ${transactionalId} moved from broker ${previous} to ${brokerId}`);
      return previous;
    },
    coordinatorLoadInProgress(groupId, durationMs) {
      if (groupId !== null && (typeof groupId !== 'string' || groupId === '')) throw new ClusterError('groupId must be a non-empty string, or null for every group');
      const result = cluster.setLoadInProgress(groupId, durationMs);
      // The members' timers wait for the load, then start again (GroupCoordinator.loadStarted, loaded).
      const key = groupId ?? '';
      endLoad(key);
      if (groupId === null && durationMs === 0) for (const k of [...loadEnds.keys()]) endLoad(k);
      // Each group covered waits for the last of the windows covering it (another may outlast this one).
      const loadingMs = (g: string): number => cluster.loadRemainingMs(g);
      broker.groups.loadChanged(groupId, loadingMs);
      if (durationMs > 0) {
        const end = setTimeout(() => {
          loadEnds.delete(key);
          if (!broker.isClosed) broker.groups.loadChanged(groupId, loadingMs);
        }, durationMs);
        end.unref();
        loadEnds.set(key, end);
      }
      log.info({ groupId: groupId ?? '*', durationMs }, `cluster: coordinator load in progress for ${groupId === null ? 'every group' : `group ${groupId}`} (${durationMs} ms)`);
      return result;
    },
    stopBroker(brokerId) {
      return serial(async () => {
        cluster.checkBroker(brokerId);
        if (!cluster.isUp(brokerId)) throw new ClusterError(`broker ${brokerId} is already stopped`, 409);
        await electing(broker, () => cluster.setUp(brokerId, false));
        await listeners.stop(brokerId);
        log.info({ brokerId }, `cluster: broker ${brokerId} stopped`);
      });
    },
    startBroker(brokerId) {
      return serial(async () => {
        cluster.checkBroker(brokerId);
        if (cluster.isUp(brokerId)) throw new ClusterError(`broker ${brokerId} is already running`, 409);
        await listeners.start(brokerId).catch((err: NodeJS.ErrnoException & { port?: number }) => {
          if (err.code !== 'EADDRINUSE') throw err;
          throw new ClusterError(`broker ${brokerId} cannot listen on port ${err.port} again: another process took it while the broker was stopped (EADDRINUSE); it stays stopped until the port is free`, 409);
        });
        await electing(broker, () => cluster.setUp(brokerId, true));
        log.info({ brokerId }, `cluster: broker ${brokerId} started`);
      });
    },
    moveLeader(topic, partition, brokerId) {
      const previous = typeof topic === 'string' && Number.isInteger(partition) ? cluster.leaderOf(topic, partition) : -1;
      cluster.moveLeader(topic, partition, brokerId);
      // A stopped broker leads once it starts again (startBroker's election bumps the epoch then):
      // until then the leader, and its epoch, stay (adversarial trial, session 30: the epoch rose
      // with the same leader, and the log named a move that had not happened).
      const leader = cluster.leaderOf(topic, partition);
      if (leader !== previous) void broker.topics.get(topic)?.partition(partition)?.bumpLeaderEpoch(leader, true).catch((err: unknown) => log.error({ err, topic, partition }, 'could not write the new leader epoch'));
      if (leader === brokerId) log.info({ topic, partition, from: previous, to: brokerId }, `cluster: leader of ${topic}-${partition} moved from broker ${previous} to ${brokerId}`);
      else log.info({ topic, partition, leader, preferred: brokerId }, `cluster: broker ${brokerId} is stopped; it leads ${topic}-${partition} once it starts again (broker ${leader} leads it meanwhile)`);
      return previous;
    },
  };
}

/**
 * What the admin API records from its start, whether or not anyone has asked it anything yet:
 * request totals (for `/metrics`) and the group watch (the console's timelines and lag samples,
 * the rebalance and commit counters). Kept apart from the HTTP app (src/admin/server.ts) because
 * the app, fastify and prom-client load only with the first HTTP request (src/admin/listener.ts),
 * while these must see every request from the start.
 */
import type { Broker } from '../broker.js';
import type { FaultRegistry } from '../faults/registry.js';
import type { ServerClock } from '../util/manual-time.js';
import { GroupWatch } from './group-watch.js';
import { RequestStats } from './request-stats.js';

export interface AdminLiveState {
  readonly requestStats: RequestStats;
  readonly watch: GroupWatch;
  /** Stops recording (the request-done hook, the watch's timers). */
  close(): void;
}

export function startLiveState(options: { broker: Broker; faults: FaultRegistry; clock: ServerClock }): AdminLiveState {
  const { broker, faults, clock } = options;
  const requestStats = new RequestStats();
  const stopRequestStats = faults.onRequestDone((entry) => requestStats.record(entry));
  const watch = new GroupWatch({ broker, faults, clock, coordinatorOf: (groupId) => broker.cluster.coordinatorOf(groupId) });
  return {
    requestStats,
    watch,
    close() {
      stopRequestStats();
      watch.close();
    },
  };
}

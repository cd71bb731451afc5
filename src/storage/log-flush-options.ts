/**
 * The durability settings every log of a server (`__consumer_offsets`, `__transaction_state`,
 * `__share_group_state`, topics) takes from its broker config, in one place so they cannot drift:
 * `mock.flush.policy`, Kafka's `log.flush.interval.ms` / `log.flush.interval.messages`,
 * the server's inline-sync gate (`mock.flush.inline.sync.max.ms`), its descriptor cache
 * (`mock.max.open.files`), whether its logs were closed cleanly last time (recovery's rule for
 * a bad last batch: clean-shutdown.ts) and whether another server took its directory over.
 */
import type { BrokerConfig } from '../config.js';
import { fileCacheFor } from './fd-cache.js';
import { syncGateFor } from './inline-sync-gate.js';
import { stoppedCleanlyBefore } from './clean-shutdown.js';
import { directoryTakenOverCheck } from './directory-taken-over.js';
import type { FlushPolicy, PartitionLogOptions } from './partition-log.js';

export type LogFlushOptions = Pick<PartitionLogOptions, 'flushPolicy' | 'flushIntervalMs' | 'flushIntervalMessages' | 'syncGate' | 'files' | 'stoppedCleanly' | 'directoryTakenOver'>;

export function logFlushOptions(config: BrokerConfig): LogFlushOptions {
  return {
    flushPolicy: config.string('mock.flush.policy') as FlushPolicy,
    flushIntervalMs: Number(config.long('log.flush.interval.ms')),
    flushIntervalMessages: config.long('log.flush.interval.messages'),
    syncGate: syncGateFor(config),
    files: fileCacheFor(config),
    stoppedCleanly: stoppedCleanlyBefore(config),
    directoryTakenOver: directoryTakenOverCheck(config),
  };
}

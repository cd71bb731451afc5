import { pino } from 'pino';
import type { CoordinatorRecord } from '../../src/coordinator/records.js';
import { CoordinatorRuntime } from '../../src/coordinator/runtime.js';

/**
 * In-memory stand-in for the `__consumer_offsets` log (`GroupLog.append`): keeps what was
 * appended so tests can assert on the records; `failNextAppend()` makes the next append reject,
 * as a failed disk write would; `holdAppends()` keeps appends in flight until released, as a
 * slow disk would.
 */
export class MemoryGroupLog {
  readonly records: CoordinatorRecord[] = [];
  private failures = 0;
  private held: Array<() => void> | null = null;

  append(records: readonly CoordinatorRecord[]): Promise<void> {
    if (this.held) {
      const held = this.held;
      return new Promise<void>((resolve) => held.push(resolve)).then(() => this.append(records));
    }
    if (this.failures > 0) {
      this.failures--;
      // What a full disk gives the log: a Node system error (Kafka's KAFKA_STORAGE_ERROR).
      return Promise.reject(Object.assign(new Error('simulated append failure: ENOSPC, no space left on device'), { code: 'ENOSPC', syscall: 'write' }));
    }
    this.records.push(...records);
    return Promise.resolve();
  }

  /** One partition: every group's records go to the same log. */
  partitionFor(): number {
    return 0;
  }

  /** A coordinator runtime writing to this log (register the shards on it). */
  runtime(): CoordinatorRuntime {
    return new CoordinatorRuntime(this, pino({ level: 'silent' }));
  }

  failNextAppend(): void {
    this.failures++;
  }

  /** Appends from now on stay in flight until the returned function is called (then they are written, in order). */
  holdAppends(): () => void {
    const held: Array<() => void> = [];
    this.held = held;
    return () => {
      if (this.held === held) this.held = null;
      for (const resolve of held) resolve();
    };
  }

  /** GroupMetadata records of one group, in append order (null values are tombstones). */
  groupMetadata(groupId: string) {
    return this.records.flatMap((r) => (r.kind === 'group-metadata' && r.groupId === groupId ? [r.value] : []));
  }
}

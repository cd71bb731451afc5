import type { CoordinatorRecord } from '../../src/coordinator/records.js';

/**
 * In-memory stand-in for the `__consumer_offsets` log (`GroupLog.append`): keeps what was
 * appended so tests can assert on the records; `failNextAppend()` makes the next append reject,
 * as a failed disk write would.
 */
export class MemoryGroupLog {
  readonly records: CoordinatorRecord[] = [];
  private failures = 0;

  append(records: readonly CoordinatorRecord[]): Promise<void> {
    if (this.failures > 0) {
      this.failures--;
      return Promise.reject(new Error('simulated append failure'));
    }
    this.records.push(...records);
    return Promise.resolve();
  }

  failNextAppend(): void {
    this.failures++;
  }

  /** GroupMetadata records of one group, in append order (null values are tombstones). */
  groupMetadata(groupId: string) {
    return this.records.flatMap((r) => (r.kind === 'group-metadata' && r.groupId === groupId ? [r.value] : []));
  }
}

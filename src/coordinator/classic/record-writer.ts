import { ErrorCode } from '../../protocol/errors.js';
import type { Logger } from 'pino';
import type { GroupLog } from '../group-log.js';
import type { CoordinatorRecord } from '../records.js';

/**
 * Appends the classic coordinator's records to `__consumer_offsets` and remembers which appends
 * are still in flight, so a request handler can wait (`flush`) for every record its work produced
 * — including records written by a rebalance it triggered — before its response goes out.
 */
export class RecordWriter {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly groupLog: Pick<GroupLog, 'append'>,
    private readonly log: Logger,
  ) {}

  /** Appends `records`; the promise rejects if the append fails. */
  append(records: CoordinatorRecord[]): Promise<void> {
    // A record that cannot be encoded (a key string over its int16 length) throws while the batch
    // is built: turn it into a failed append, so timer paths log it instead of crashing.
    let append: Promise<void>;
    try {
      append = this.groupLog.append(records);
    } catch (err) {
      append = Promise.reject(err);
    }
    const settled = append.then(
      () => undefined,
      () => undefined,
    );
    this.inFlight.add(settled);
    void settled.then(() => this.inFlight.delete(settled));
    return append;
  }

  /**
   * Appends records whose failure no caller can act on (Kafka only logs it: e.g. the record of a
   * group that became Empty; the previous generation simply stays in the log).
   */
  appendLogged(records: CoordinatorRecord[], what: string): void {
    this.append(records).catch((err: unknown) => {
      this.log.warn({ err, groupIds: [...new Set(records.map((r) => r.groupId))] }, `failed to write ${what}`);
    });
  }

  /** Resolves once every append started so far has settled (success or failure). */
  async flush(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.all([...this.inFlight]);
  }
}

/**
 * The error a client gets when its group's record could not be written. Kafka maps a local
 * storage failure (KAFKA_STORAGE_ERROR) to NOT_COORDINATOR in `appendGroupMetadataErrorToResponseError`,
 * which sends the client to look the coordinator up again and retry.
 */
export const APPEND_FAILED_ERROR: number = ErrorCode.NOT_COORDINATOR;

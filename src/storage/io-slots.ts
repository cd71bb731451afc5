/**
 * A counting semaphore for asynchronous file operations that hold a descriptor while they run
 * (issue #16): with thousands of partitions syncing at once, each would otherwise hold its own
 * descriptor until libuv's four threads get to it, and the process runs out (EMFILE).
 */
export class IoSlots {
  private busy = 0;
  private readonly waiting: Array<() => void> = [];

  /** `limit`: operations running at once, at least 1. */
  constructor(readonly limit: number) {}

  /** Runs `op` once fewer than `limit` operations run; the slot is freed when it settles. */
  async run<T>(op: () => Promise<T>): Promise<T> {
    if (this.busy >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.busy++;
    try {
      return await op();
    } finally {
      const next = this.waiting.shift();
      if (next) next(); // the slot passes to the next waiter as is
      else this.busy--;
    }
  }
}

/** Descriptors held at once by file-io's own asynchronous opens (directory syncs, durable replacements), process-wide. */
export const FILE_IO_SLOTS = new IoSlots(16);

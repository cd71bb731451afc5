/**
 * Asynchronous writes started one by one (a creation's per-partition files) and awaited together:
 * each failure is caught as it happens (no unhandled rejection while the others run), and `settle`
 * resolves once all have ended, rejecting with the first failure.
 */
export class PendingWrites {
  private readonly outcomes: Array<Promise<unknown>> = [];

  add(write: Promise<void>): void {
    this.outcomes.push(write.then(() => undefined, (err: unknown) => err ?? new Error('write failed')));
  }

  /** Waits for every write added; throws the first failure. */
  async settle(): Promise<void> {
    const failure = (await Promise.all(this.outcomes)).find((outcome) => outcome !== undefined);
    if (failure !== undefined) throw failure;
  }
}

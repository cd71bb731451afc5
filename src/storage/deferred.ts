/** A promise together with its resolve/reject, for durability waiters shared by many appends. */
export interface Deferred {
  readonly promise: Promise<void>;
  resolve(): void;
  reject(err: Error): void;
}

export function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // A durability failure is also reported through the log; an append whose caller ignores
  // `durable` (acks=0) must not crash the process with an unhandled rejection.
  promise.catch(() => {});
  return { promise, resolve, reject };
}

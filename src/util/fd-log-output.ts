import { writeSync } from 'node:fs';

/** What the server's log output tells fd 2 (best effort): one line when it stops, one when it resumes. */
export type LogOutputNotice = (line: string) => void;

const pause = new Int32Array(new SharedArrayBuffer(4));
/** How long a write waits on a full non-blocking pipe before it tries again (sonic-boom's BUSY_WRITE_TIMEOUT). */
const BUSY_WRITE_WAIT_MS = 100;

/**
 * The server's log output: each text written to `fd` whole, synchronously, with no buffer of its
 * own. A write that fails (EPIPE or ECONNRESET: its reader went away; ENOSPC: a full disk behind
 * it) costs that text only, never the broker; the next write tries again, so the log resumes as
 * soon as writes work again (space freed, a new reader on a FIFO), as Kafka's console appender (a
 * java.io.PrintStream) notes its trouble and keeps writing each line.
 *
 * Cheap on an output that stays broken: nothing is kept for later (no buffer grows), a failed
 * write is one system call and one Error built without a stack trace (`Error.stackTraceLimit` is
 * 0 around it while the output is failing), and the server's writes are at most one per
 * event-loop turn that logs (util/turn-batched-lines.ts). The notices go to `notice` once per
 * failure episode: one when the output stops, one (with the count of texts lost) when a write
 * works again. Not pino's sonic-boom: after a failed write it keeps the text and retries it first,
 * holding every later line in memory behind it.
 *
 * A full non-blocking pipe (EAGAIN: a fd 1 that another process made non-blocking) waits and tries
 * again, as sonic-boom does: those lines are slow, not lost.
 */
export function fdLogOutput(fd: number, notice: LogOutputNotice): { write(text: string): void } {
  let failing = false;
  let lost = 0;
  const writeAll = (text: string): void => {
    let bytes: Buffer | null = null;
    let offset = 0;
    for (;;) {
      try {
        if (bytes === null) {
          const n = writeSync(fd, text);
          if (n === Buffer.byteLength(text)) return;
          bytes = Buffer.from(text);
          offset = n;
        } else {
          offset += writeSync(fd, bytes, offset);
          if (offset === bytes.length) return;
        }
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code !== 'EAGAIN' && code !== 'EBUSY') throw err;
        Atomics.wait(pause, 0, 0, BUSY_WRITE_WAIT_MS);
      }
    }
  };
  return {
    write(text: string): void {
      const stackTraceLimit = Error.stackTraceLimit;
      if (failing) Error.stackTraceLimit = 0;
      try {
        writeAll(text);
      } catch (err) {
        lost++;
        if (failing) return;
        failing = true;
        notice(`kafka-mock-coordinator: log output stopped (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); still serving, trying each line again\n`);
        return;
      } finally {
        Error.stackTraceLimit = stackTraceLimit;
      }
      if (!failing) return;
      failing = false;
      notice(`kafka-mock-coordinator: log output resumed (${lost} ${lost === 1 ? 'write' : 'writes'} lost)\n`);
      lost = 0;
    },
  };
}

/** A notice on fd 2, best effort: stderr is often the same closed pipe or full disk as the log. */
export function noticeOnStderr(line: string): void {
  const stackTraceLimit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  try {
    writeSync(2, line);
  } catch {
    // fd 2 is gone too: nothing left to tell.
  } finally {
    Error.stackTraceLimit = stackTraceLimit;
  }
}

import type { DestinationStream } from 'pino';

/**
 * A log destination that hands the lines logged in one event-loop turn to `out` together, in one
 * write in that turn's check phase, instead of one write per line: with the server's synchronous
 * stdout every write is a system call, and a burst of a thousand clients joining a group logs a
 * line or two for each of them (Kafka's MEMBER_ID_REQUIRED and join lines), several per turn.
 * Lines keep their order (one buffer). What is buffered is written when the process exits (the
 * `exit` event also follows `process.exit()` and an uncaught exception), and lines logged after
 * that go straight through; a SIGKILL loses at most the lines of the turn it interrupted.
 */
export function turnBatchedLines(out: DestinationStream): DestinationStream & { flush(): void } {
  let lines: string[] = [];
  let queued = false;
  let exiting = false;
  const flush = (): void => {
    queued = false;
    if (lines.length === 0) return;
    const text = lines.length === 1 ? lines[0]! : lines.join('');
    lines = [];
    out.write(text);
  };
  process.once('exit', () => {
    exiting = true;
    flush();
  });
  return {
    write(line: string): void {
      if (exiting) {
        out.write(line);
        return;
      }
      lines.push(line);
      if (!queued) {
        queued = true;
        setImmediate(flush);
      }
    },
    flush,
  };
}

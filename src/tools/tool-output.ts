/**
 * Output pieces shared by the Kafka look-alike tools (`groups`, `share-groups`): Java's `%-Ns`
 * padding, Kafka's `-` for a missing value and the stdout/stderr/exit-code split of
 * `printError` (`\nError: <msg>` on stdout).
 */

/** Kafka's `MISSING_COLUMN_VALUE` (ConsumerGroupCommand, ShareGroupCommand). */
export const MISSING = '-';

/** Java's `%-Ns`: pads on the right to at least n characters. */
export function left(s: string, n: number): string {
  return s.length >= n ? s : s + ' '.repeat(n - s.length);
}

/** Output of a command: what goes to stdout and to stderr, and the exit code. */
export interface CommandOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Accumulates a command's output. */
export class Output {
  stdout = '';
  stderr = '';
  exitCode = 0;
  /** Kafka's `printError`: `\nError: <msg>` on stdout. */
  error(msg: string): void {
    this.stdout += `\nError: ${msg}\n`;
  }
  result(): CommandOutput {
    return { stdout: this.stdout, stderr: this.stderr, exitCode: this.exitCode };
  }
}

/** A group state as Kafka's `GroupState.toString()` prints it. */
export function groupStateName(state: string): string {
  const known = ['Unknown', 'PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead', 'Empty', 'Assigning', 'Reconciling', 'NotReady'];
  const found = known.find((k) => k.toLowerCase() === state.toLowerCase());
  return found ?? 'Unknown';
}

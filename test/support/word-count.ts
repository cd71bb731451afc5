/**
 * Runs test/clients/java's Kafka Streams WordCount (kmc.WordCount) from vitest: its JSON events as
 * they come, a clean stop (closing its stdin starts `KafkaStreams.close`) and a crash (SIGKILL).
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { javaClasspath } from './java.js';
import { waitFor } from './kafkajs.js';

export interface WordCountRun {
  /** The `{"event": ...}` lines printed so far, in order. */
  events: Array<Record<string, unknown>>;
  /** Closes stdin and resolves when the JVM has exited (Streams closed cleanly). */
  stop: () => Promise<void>;
  /** SIGKILL: no close, no commit, open transactions left open; resolves when the JVM is gone. */
  kill: () => Promise<void>;
  /** The events and the tail of stderr, for failure messages. */
  output: () => string;
}

/**
 * Starts `kmc.WordCount bootstrap input output stateDir ...args` (args: `processing.guarantee`, the
 * word to crash on). The JVM is killed after 170 s whatever happens; `stop` goes into `cleanups`.
 */
export function startWordCount(
  cleanups: Array<() => Promise<void> | void>,
  bootstrap: string,
  topics: { input: string; output: string },
  stateDir: string,
  args: string[] = [],
): WordCountRun {
  const child = spawn('java', ['-Dorg.slf4j.simpleLogger.defaultLogLevel=warn', '-cp', javaClasspath!, 'kmc.WordCount', bootstrap, topics.input, topics.output, stateDir, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const events: Array<Record<string, unknown>> = [];
  let stderr = '';
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (line.startsWith('{')) events.push(JSON.parse(line) as Record<string, unknown>);
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const watchdog = setTimeout(() => child.kill('SIGKILL'), 170_000);
  const end = async (how: () => void) => {
    how();
    await exited;
    clearTimeout(watchdog);
  };
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await end(() => child.stdin.end());
  };
  const kill = async () => {
    stopped = true;
    await end(() => child.kill('SIGKILL'));
  };
  cleanups.push(stop);
  return { events, stop, kill, output: () => `events: ${JSON.stringify(events)}\nstderr: ${stderr.slice(-4000)}` };
}

/** `waitFor` (120 s), with what the programs said (`context`) when it times out. */
export async function until(predicate: () => boolean, what: string, context: () => string): Promise<void> {
  try {
    await waitFor(predicate, 120_000, what);
  } catch (err) {
    throw new Error(`${(err as Error).message}\n${context()}`);
  }
}

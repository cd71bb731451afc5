/**
 * The Kafka-tools suite (`npm run test:kafka-tools`): Kafka 4.3.1's own command-line tools (the
 * classes behind `kafka-topics.sh`, `kafka-configs.sh`, ... in `.kafka/4.3.1/libs`) run against our
 * server and against the real Kafka 4.3.1 broker of the conformance suite (test/conformance/oracle.ts,
 * started once by its global setup), and what they print is compared after normalising what
 * legitimately differs: the run's name suffix, topic ids, ports, member and consumer ids, producer
 * ids, timestamps, batch sizes and CRCs (they follow the producer's timing), log directory paths,
 * and the column padding of tables (which follows the longest value). A case is a script of tool runs; `toolCase` runs it on both targets at once and fails with
 * both outputs side by side when they differ.
 */
import { afterAll, beforeAll, inject, it } from 'vitest';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { KAFKA_LIBS, SHARED_CONFIG, waitForCoordinator } from '../conformance/oracle.js';
import type { ServerHandle } from '../../src/index.js';

/** The tools and the classes that `bin/<tool>.sh` runs. */
export const TOOLS = {
  'kafka-topics': 'org.apache.kafka.tools.TopicCommand',
  'kafka-configs': 'kafka.admin.ConfigCommand',
  'kafka-consumer-groups': 'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand',
  'kafka-get-offsets': 'org.apache.kafka.tools.GetOffsetShell',
  'kafka-delete-records': 'org.apache.kafka.tools.DeleteRecordsCommand',
  'kafka-log-dirs': 'org.apache.kafka.tools.LogDirsCommand',
  'kafka-console-producer': 'org.apache.kafka.tools.ConsoleProducer',
  'kafka-console-consumer': 'org.apache.kafka.tools.consumer.ConsoleConsumer',
  'kafka-dump-log': 'org.apache.kafka.tools.DumpLogSegments',
  'kafka-leader-election': 'org.apache.kafka.tools.LeaderElectionCommand',
  'kafka-share-groups': 'org.apache.kafka.tools.consumer.group.ShareGroupCommand',
  'kafka-console-share-consumer': 'org.apache.kafka.tools.consumer.ConsoleShareConsumer',
} as const;

export type ToolName = keyof typeof TOOLS;

const JVM_OPTS = ['-Xmx256m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-Xshare:auto', '-Djava.awt.headless=true'];

export interface ToolRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A tool left running (a console consumer in a group); `stop()` kills it. */
export interface RunningTool {
  stop(): Promise<void>;
}

/** Starts a tool in the background (killed by `stop()`, or after `timeoutMs`). */
export function startTool(tool: ToolName, args: string[], timeoutMs = 120_000): RunningTool {
  const child = spawn('java', [...JVM_OPTS, '-cp', `${KAFKA_LIBS}/*`, TOOLS[tool], ...args], { stdio: ['ignore', 'ignore', 'ignore'] });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return {
    async stop() {
      clearTimeout(timer);
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Runs one tool class to completion (async: our server shares this event loop). */
export function runTool(tool: ToolName, args: string[], options: { stdin?: string; timeoutMs?: number } = {}): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn('java', [...JVM_OPTS, '-cp', `${KAFKA_LIBS}/*`, TOOLS[tool], ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      // slf4j without a binding says so on every run: not the tool's output.
      resolve({ code, stdout, stderr: stderr.split('\n').filter((l) => !l.startsWith('SLF4J:')).join('\n') });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

export type TargetName = 'kafka' | 'ours';

interface Step {
  label: string;
  value: string;
}

/** One target of a case: the bootstrap address, names unique to the run, tool runs recorded. */
export class Target {
  readonly steps: Step[] = [];
  private readonly dirs: string[] = [];
  private readonly running: RunningTool[] = [];

  constructor(
    readonly name: TargetName,
    readonly port: number,
    readonly suffix: string,
    /** Our server (for its data directory); null for Kafka. */
    readonly server: (ServerHandle & { dataDir: string }) | null,
  ) {}

  get bootstrap(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** A name unique to this run, the same on both targets. */
  topic(base: string): string {
    return `${base}-${this.suffix}`;
  }

  /** Runs a tool with `--bootstrap-server` first (unless `bootstrap` is false); not recorded. */
  run(tool: ToolName, args: string[], options: { stdin?: string; bootstrap?: boolean } = {}): Promise<ToolRun> {
    const full = options.bootstrap === false ? args : ['--bootstrap-server', this.bootstrap, ...args];
    return runTool(tool, full, options);
  }

  /** Starts a tool in the background with `--bootstrap-server` first; stopped after the case. */
  start(tool: ToolName, args: string[]): RunningTool {
    const running = startTool(tool, ['--bootstrap-server', this.bootstrap, ...args]);
    this.running.push(running);
    return running;
  }

  /** Runs `tool` until `done(stdout)` holds (not recorded); throws after `timeoutMs`. */
  async until(tool: ToolName, args: string[], done: (stdout: string) => boolean, timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const r = await this.run(tool, args);
      if (done(r.stdout)) return r.stdout;
      if (Date.now() > deadline) throw new Error(`${tool} ${args.join(' ')} never printed what was waited for; last:\n${r.stdout}\n${r.stderr}`);
    }
  }

  /** Runs a tool and records its exit code, stdout and stderr under `label`. */
  async call(label: string, tool: ToolName, args: string[], options: { stdin?: string; bootstrap?: boolean; stderr?: boolean; sortLines?: boolean } = {}): Promise<ToolRun> {
    const r = await this.run(tool, args, options);
    // sortLines: for tools that print a broker's answer in its hash order (kafka-delete-records).
    const stdout = options.sortLines ? r.stdout.trimEnd().split('\n').sort().join('\n') : r.stdout.trimEnd();
    const parts = [`exit ${r.code}`, stdout];
    if (options.stderr !== false && r.stderr.trim() !== '') parts.push(`stderr: ${firstLines(r.stderr)}`);
    this.steps.push({ label, value: parts.join('\n') });
    return r;
  }

  record(label: string, value: string): void {
    this.steps.push({ label, value });
  }

  /** A temporary file with `text` (removed after the case). */
  file(name: string, text: string): string {
    const dir = mkdtempSync(join(tmpdir(), 'kmc-tools-'));
    this.dirs.push(dir);
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  }

  /** A raw protocol connection (setup steps a tool does not cover). */
  async raw(): Promise<RawClient> {
    return RawClient.connect(this.port);
  }

  async cleanup(): Promise<void> {
    await Promise.all(this.running.splice(0).map((r) => r.stop()));
    for (const d of this.dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  }

  normalised(): Step[] {
    return this.steps.map((s) => ({ label: s.label, value: normalise(s.value, this.suffix) }));
  }
}

/** Error output: the exception lines (the stack's `at` lines differ only by line numbers). */
function firstLines(text: string): string {
  return text.split('\n').filter((l) => l.trim() !== '' && !/^\s+at /.test(l) && !/^\s+\.\.\. \d+ more/.test(l)).join('\n');
}

/** What legitimately differs between two brokers, replaced by placeholders; table padding collapsed. */
export function normalise(text: string, suffix: string): string {
  return text
    .split(suffix).join('<s>')
    .replace(/(TopicId:\s*)[A-Za-z0-9_-]{22}/g, '$1<topicId>')
    .replace(/"topicId":\s*"[A-Za-z0-9_-]{22}"/g, '"topicId":"<topicId>"')
    .replace(/(127\.0\.0\.1|localhost):\d+/g, '<host:port>')
    .replace(/console-consumer-[0-9a-f-]{36}/g, '<console-member>')
    .replace(/tools-member-[0-9a-f-]{36}/g, '<tools-member>')
    .replace(/\b[A-Za-z0-9_-]{22}\b(?=\s+\/127\.0\.0\.1)/g, '<member>')
    .replace(/"logDir":"[^"]*"/g, '"logDir":"<logDir>"')
    .replace(/\/[^\s"]*\/(?=[^\s/"]+-\d+\/\d{20}\.log)/g, '<dir>/')
    .replace(/(CreateTime|LogAppendTime|lastModified|maxTimestamp|baseTimestamp|commitTimestamp|currentStateTimestamp|assignmentTimestamp)(["]?:\s*"?)-?\d{10,}/g, '$1$2<ts>')
    .replace(/(producerId|producerEpoch)(:\s*)-?\d+/g, '$1$2<pid>')
    .replace(/crc:\s*\d+/g, 'crc: <crc>')
    // A batch's size follows its records' timestamp deltas (varints), i.e. how fast the producer went.
    .replace(/\bsize: \d+/g, 'size: <bytes>')
    .replace(/"size":\d+/g, '"size":<bytes>')
    .split('\n')
    .map((l) => l.replace(/[ \t]+/g, ' ').trimEnd())
    .join('\n');
}

function sideBySide(label: string, left: string, right: string): string {
  const l = left.split('\n');
  const r = right.split('\n');
  const width = Math.max(30, ...l.map((s) => s.length));
  const out = [`--- step "${label}" ---`, `${'Kafka 4.3.1'.padEnd(width)}   ours`];
  for (let i = 0; i < Math.max(l.length, r.length); i++) {
    const a = l[i] ?? '';
    const b = r[i] ?? '';
    out.push(`${a.padEnd(width)} ${a === b ? ' ' : '|'} ${b}`);
  }
  return out.join('\n');
}

export function compareSteps(kafka: Step[], ours: Step[]): string {
  const reports: string[] = [];
  for (let i = 0; i < Math.max(kafka.length, ours.length); i++) {
    const k = kafka[i];
    const o = ours[i];
    if (!k || !o || k.label !== o.label) reports.push(`step ${i}: Kafka recorded ${k?.label ?? '(nothing)'}, ours ${o?.label ?? '(nothing)'}`);
    else if (k.value !== o.value) reports.push(sideBySide(k.label, k.value, o.value));
  }
  return reports.join('\n\n');
}

let ours: (ServerHandle & { dataDir: string; stop: () => Promise<void> }) | null = null;

/** Starts our server for this file with the oracle's broker configs (127.0.0.1, one offsets partition). */
export function useToolTargets(): void {
  beforeAll(async () => {
    ours = await startTestServer({ host: '127.0.0.1', config: { ...SHARED_CONFIG, 'offsets.topic.num.partitions': 1 } });
    // Kafka's `__consumer_offsets` was created by the global setup's group lookup: the same here.
    await waitForCoordinator(ours.port, 30_000);
  });
  afterAll(async () => {
    await ours?.stop();
    ours = null;
  });
}

export type ToolScript = (t: Target) => Promise<void>;

/**
 * A case's timeout (ms): a guard against a hang, not a speed check. Each tool call starts a JVM,
 * two at a time (Kafka's run and ours); on a 2-core machine at load 20-25 one took about 12 s, and a
 * case of 15 calls overran the 180 s it had (share-groups reset-offsets, 2026-12-04).
 */
const CASE_TIMEOUT_MS = 600_000;

export interface ToolCaseOptions {
  /** Output that differs from Kafka's on purpose or for now: the case then passes only while it differs. Say how. */
  knownDifference?: string;
  timeoutMs?: number;
}

/** Registers a case: the script runs on Kafka and on our server at once, and their outputs must match. */
export function toolCase(title: string, script: ToolScript, options: ToolCaseOptions = {}): void {
  const fn = async () => {
    if (!ours) throw new Error('useToolTargets() was not called in this file');
    const suffix = randomBytes(4).toString('hex');
    const targets = [new Target('kafka', inject('kafkaPort'), suffix, null), new Target('ours', ours.port, suffix, ours)];
    try {
      await Promise.all(targets.map(async (t) => {
        try {
          await script(t);
        } catch (err) {
          (err as Error).message = `${t.name}: ${(err as Error).message}`;
          throw err;
        }
      }));
    } finally {
      await Promise.all(targets.map((t) => t.cleanup()));
    }
    const report = compareSteps(targets[0]!.normalised(), targets[1]!.normalised());
    // KMC_TOOLS_PRINT=1 prints what our server's run printed (normalised), to read the outputs compared.
    if (process.env['KMC_TOOLS_PRINT']) console.log(targets[1]!.normalised().map((s) => `### ${s.label}\n${s.value}`).join('\n'));
    if (report) {
      console.log(report);
      throw new Error(`tool output differs from Kafka 4.3.1:\n${report}`);
    }
  };
  if (options.knownDifference) it.fails(`${title} [known difference: ${options.knownDifference}]`, fn, options.timeoutMs ?? CASE_TIMEOUT_MS);
  else it(title, fn, options.timeoutMs ?? CASE_TIMEOUT_MS);
}

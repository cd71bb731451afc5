/**
 * End to end with franz-go (kgo), classic and KIP-848 consumer groups: the scenario of
 * test/e2e/clients/group-resume.ts (produce, consume in a group, commit, close, a new consumer
 * resumes at the committed offsets), driven by the Go program test/clients/go (go.mod pins the
 * franz-go version). The API versions it used go to test/clients/api-versions/franz-go.json.
 *
 * The binary is $KMC_FRANZ_GO_BIN if set, else test/support/provision.ts builds it with `go build`
 * into .tmp/bin (modules come from the Go module proxy on first use); without Go the suite is skipped.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

import {
  REPO_ROOT,
  runGroupResumeScenario,
  writeApiVersions,
  type ClientDriver,
  type ClientRecord,
  type GroupProtocol,
  type PartitionOffset,
} from './clients/group-resume.js';
import { clients } from '../support/clients.js';

const GO_DIR = join(REPO_ROOT, 'test', 'clients', 'go');
const DEFAULT_BIN = join(REPO_ROOT, '.tmp', 'bin', 'kmc-franz-go');
const FRANZ_GO_VERSION = /github\.com\/twmb\/franz-go (v\S+)/.exec(readFileSync(join(GO_DIR, 'go.mod'), 'utf8'))?.[1] ?? 'unknown';

interface RunOutput {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Async spawn: the server runs in this process's event loop, so never spawnSync while it serves. */
function run(cmd: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs: number }): Promise<RunOutput> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      stderr += `\n[test] killed after ${options.timeoutMs} ms\n`;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${cmd}: ${err.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr });
    });
  });
}

/** The binary test/support/provision.ts built (or $KMC_FRANZ_GO_BIN); null without Go here. */
const BINARY = clients().franzGo;

interface GoResult {
  ok: boolean;
  stage: string;
  error?: string;
  produced?: Record<string, number>;
  records?: ClientRecord[];
  committed?: Array<PartitionOffset & { error: string | null }>;
  clientCommitted?: PartitionOffset[];
  franzGo?: string;
}

function lastJson(stdout: string): GoResult | null {
  for (const line of stdout.trim().split('\n').reverse()) {
    if (!line.startsWith('{')) continue;
    try {
      return JSON.parse(line) as GoResult;
    } catch {
      // keep looking
    }
  }
  return null;
}

async function runGo(args: string[]): Promise<GoResult> {
  const out = await run(BINARY!, [...args, '-timeout', '40s'], { timeoutMs: 50_000 });
  const result = lastJson(out.stdout);
  if (result === null || !result.ok || out.code !== 0) {
    throw new Error(
      `franz-go ${args.join(' ')} failed at stage '${result?.stage ?? '?'}': ${result?.error ?? 'no JSON result'} (exit ${out.code})\n` +
        `stdout:\n${out.stdout}\nstderr:\n${out.stderr.slice(-8000)}`,
    );
  }
  return result;
}

const driver: ClientDriver = {
  clientIdPrefix: 'kmc-franz-go',
  async produce({ bootstrap, topic, count, keyPrefix }) {
    const r = await runGo(['-mode', 'produce', '-bootstrap', bootstrap, '-topic', topic, '-count', String(count), '-partitions', '3', '-key-prefix', keyPrefix, '-client-id', 'kmc-franz-go-producer']);
    return { produced: r.produced ?? {} };
  },
  async consume({ bootstrap, topic, group, count, protocol, round }) {
    const r = await runGo([
      '-mode', 'consume', '-bootstrap', bootstrap, '-topic', topic, '-group', group, '-count', String(count),
      '-protocol', protocol, '-client-id', `kmc-franz-go-consumer-${round}`,
    ]);
    // The client's own view of its commit must match what OffsetFetch returns.
    expect((r.clientCommitted ?? []).map(({ partition, offset }) => ({ partition, offset })), JSON.stringify(r)).toEqual((r.committed ?? []).map(({ partition, offset }) => ({ partition, offset })));
    for (const c of r.committed ?? []) expect(c.error, JSON.stringify(r)).toBeNull();
    return { records: r.records ?? [], committed: (r.committed ?? []).map(({ partition, offset }) => ({ partition, offset })) };
  },
};

const recorded: Array<[GroupProtocol, Awaited<ReturnType<typeof runGroupResumeScenario>>['recorder']]> = [];

afterAll(() => {
  for (const [protocol, recorder] of recorded) writeApiVersions('franz-go', FRANZ_GO_VERSION, protocol, recorder);
});

describe.skipIf(BINARY === null)(`franz-go ${FRANZ_GO_VERSION} (kgo) against the server`, () => {
  it('classic group: produce, consume, commit, close; a new consumer resumes at the committed offsets', async () => {
    const { recorder } = await runGroupResumeScenario(driver, 'classic', { topic: 'franz-classic', group: 'franz-classic-group' });
    recorded.push(['classic', recorder]);
  }, 300_000);

  it('KIP-848 consumer group (opt_in_kafka_next_gen_balancer_beta): same scenario over ConsumerGroupHeartbeat', async () => {
    const { recorder } = await runGroupResumeScenario(driver, 'consumer', { topic: 'franz-848', group: 'franz-848-group' });
    recorded.push(['consumer', recorder]);
  }, 300_000);
});

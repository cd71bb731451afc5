/**
 * Runs the franz-go test client (test/clients/go, built by test/support/provision.ts into .tmp/bin,
 * or $KMC_FRANZ_GO_BIN): one mode per run, its result the last JSON line of stdout.
 */
import type { ClientRecord, PartitionOffset } from '../e2e/clients/group-resume.js';
import { clients } from './clients.js';
import { runProcess } from './process.js';

/** The binary, or null without Go here (the suites that need it skip). */
export const FRANZ_GO_BINARY = clients().franzGo;

/** What the Go program prints (main.go's `result`). */
export interface GoResult {
  ok: boolean;
  stage: string;
  error?: string;
  produced?: Record<string, number>;
  records?: ClientRecord[];
  /** etl: the inputs whose transformation was aborted. */
  aborted?: ClientRecord[];
  /** etl: transactions ended (committed or aborted). */
  transactions?: number;
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

/** Runs the binary with `args` (and its own `-timeout 40s`); throws with its output unless it succeeded. */
export async function runFranzGo(args: string[]): Promise<GoResult> {
  const out = await runProcess(FRANZ_GO_BINARY!, [...args, '-timeout', '40s'], 50_000);
  const result = lastJson(out.stdout);
  if (result === null || !result.ok || out.code !== 0) {
    throw new Error(
      `franz-go ${args.join(' ')} failed at stage '${result?.stage ?? '?'}': ${result?.error ?? 'no JSON result'} (exit ${out.code})\n` +
        `stdout:\n${out.stdout}\nstderr:\n${out.stderr.slice(-8000)}`,
    );
  }
  return result;
}

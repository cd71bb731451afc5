import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const LOCAL_VENV_PYTHON = join(REPO_ROOT, '.venv-ci', 'bin', 'python');

/**
 * The Python that runs the librdkafka (confluent-kafka) and kafka-python test clients:
 * $KMC_PYTHON, else the `.venv-ci` that .ci/run creates, else `python3`.
 */
export const PYTHON = process.env['KMC_PYTHON'] ?? (existsSync(LOCAL_VENV_PYTHON) ? LOCAL_VENV_PYTHON : 'python3');

/** What to tell the user when a Python test client is missing (a failure, never a skip). */
export const PYTHON_CLIENTS_HINT =
  'Install the Python test clients first as .ci/run does (python3 -m venv .venv-ci && .venv-ci/bin/pip install ' +
  'confluent-kafka==2.16.1 kafka-python==3.0.12), or set KMC_PYTHON to a Python that has them.';

/**
 * Runs the test-client Python asynchronously (the server under test may live in this process's
 * event loop, so never spawnSync while it runs); kills it after `timeoutMs`.
 */
export function runPython(args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PYTHON, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      stderr += `\n[test] killed after ${timeoutMs} ms\n`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`cannot run ${PYTHON}: ${err.message}. ${PYTHON_CLIENTS_HINT}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** What the Python client adapters print as their last JSON line. */
export interface PythonClientResult {
  ok: boolean;
  stage: string;
  error?: string;
}

/**
 * Runs a Python client adapter and returns its last JSON line; throws (with both outputs) when
 * the adapter failed or printed no result. `label` names the client in the error.
 */
export async function runPythonClient<T extends PythonClientResult>(label: string, args: string[], timeoutMs: number): Promise<T> {
  const out = await runPython(args, timeoutMs);
  let result: T | null = null;
  for (const line of out.stdout.trim().split('\n').reverse()) {
    if (!line.startsWith('{')) continue;
    try {
      result = JSON.parse(line) as T;
      break;
    } catch {
      // an earlier line that only looked like JSON: keep looking
    }
  }
  if (result === null || !result.ok || out.code !== 0) {
    throw new Error(
      `${label} ${args.slice(1).join(' ')} failed at stage '${result?.stage ?? '?'}': ${result?.error ?? 'no JSON result'} (exit ${out.code})\n` +
        `stdout:\n${out.stdout}\nstderr:\n${out.stderr.slice(-8000)}`,
    );
  }
  return result;
}

import { spawn } from 'node:child_process';
import { clients } from './clients.js';

/**
 * The Python that runs the librdkafka (confluent-kafka) and kafka-python test clients, with the
 * versions it imports, as test/support/provision.ts found it ($KMC_PYTHON, else `.venv-ci`); null
 * when python3 is missing here, and the suites that need it skip (`describe.skipIf(!python)`).
 */
export const python = clients().python;

/**
 * Runs the test-client Python asynchronously (the server under test may live in this process's
 * event loop, so never spawnSync while it runs); kills it after `timeoutMs`.
 */
export function runPython(args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    if (python === null) throw new Error('no Python test clients were provisioned (see the provision lines above the test results)');
    const child = spawn(python.bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
      reject(new Error(`cannot run ${python.bin}: ${err.message}`));
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

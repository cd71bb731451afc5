import { clients } from './clients.js';
import { runProcess, type ProcessOutput } from './process.js';

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
export function runPython(args: string[], timeoutMs: number): Promise<ProcessOutput> {
  if (python === null) return Promise.reject(new Error('no Python test clients were provisioned (see the provision lines above the test results)'));
  return runProcess(python.bin, args, timeoutMs);
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

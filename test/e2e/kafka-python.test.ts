/**
 * End to end with kafka-python (pure Python, classic consumer groups only): the scenario of
 * test/e2e/clients/group-resume.ts (produce, consume in a group, commit, close, a new consumer
 * resumes at the committed offsets), driven by test/e2e/clients/kafka_python_group.py. The API
 * versions it used go to test/clients/api-versions/kafka-python.json.
 *
 * The interpreter and its kafka-python come from test/support/provision.ts; without python3 on the
 * machine the suite is skipped.
 */

import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';

import { REPO_ROOT, runGroupResumeScenario, writeApiVersions, type ApiVersionRecorder, type ClientDriver, type ClientRecord, type PartitionOffset } from './clients/group-resume.js';
import { python, runPythonClient, type PythonClientResult } from '../support/python.js';

const SCRIPT = join(REPO_ROOT, 'test', 'e2e', 'clients', 'kafka_python_group.py');
interface PyResult extends PythonClientResult {
  produced?: Record<string, number>;
  records?: ClientRecord[];
  committed?: Array<PartitionOffset & { error: string | null }>;
}

/** The adapter's deadline per stage (s): consume and commit may each take it under load; past both, it dumps its threads' stacks and exits. */
const STAGE_TIMEOUT_S = 30;

async function runClient(args: string[]): Promise<PyResult> {
  // Killed only after the adapter's own watchdog (2 stages + 10 s) had its chance to report.
  return runPythonClient<PyResult>('kafka-python', [SCRIPT, ...args, '--timeout', String(STAGE_TIMEOUT_S)], (2 * STAGE_TIMEOUT_S + 20) * 1000);
}

const driver: ClientDriver = {
  clientIdPrefix: 'kmc-kafka-python',
  async produce({ bootstrap, topic, count, keyPrefix }) {
    const r = await runClient(['produce', '--bootstrap', bootstrap, '--topic', topic, '--count', String(count), '--key-prefix', keyPrefix, '--client-id', 'kmc-kafka-python-producer']);
    return { produced: r.produced ?? {} };
  },
  async consume({ bootstrap, topic, group, count, round }) {
    const r = await runClient(['consume', '--bootstrap', bootstrap, '--topic', topic, '--group', group, '--count', String(count), '--client-id', `kmc-kafka-python-consumer-${round}`]);
    return { records: r.records ?? [], committed: (r.committed ?? []).map(({ partition, offset }) => ({ partition, offset })) };
  },
};

const version = python?.kafkaPython ?? 'not installed';
let recorder: ApiVersionRecorder | null = null;

afterAll(() => {
  if (recorder) writeApiVersions('kafka-python', version, 'classic', recorder);
});

describe.skipIf(python === null)(`kafka-python ${version} against the server`, () => {
  it('classic group: produce, consume, commit, close; a new consumer resumes at the committed offsets', async () => {
    ({ recorder } = await runGroupResumeScenario(driver, 'classic', { topic: 'kpy-classic', group: 'kpy-classic-group' }));
  }, 360_000);
});

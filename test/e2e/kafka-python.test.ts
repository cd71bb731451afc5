/**
 * End to end with kafka-python (pure Python, classic consumer groups only): the scenario of
 * test/e2e/clients/group-resume.ts (produce, consume in a group, commit, close, a new consumer
 * resumes at the committed offsets), driven by test/e2e/clients/kafka_python_group.py. The API
 * versions it used go to test/clients/api-versions/kafka-python.json.
 *
 * The interpreter is $KMC_PYTHON, else ./.venv-ci/bin/python if present, else `python3`; it needs
 * kafka-python (pinned in .ci/run). A missing interpreter or package is a failure, never a skip.
 */
import { spawn, spawnSync } from 'node:child_process';

import { join } from 'node:path';
import { afterAll, describe, it } from 'vitest';

import { REPO_ROOT, runGroupResumeScenario, writeApiVersions, type ApiVersionRecorder, type ClientDriver, type ClientRecord, type PartitionOffset } from './clients/group-resume.js';
import { PYTHON, runPythonClient, type PythonClientResult } from '../support/python.js';

const SCRIPT = join(REPO_ROOT, 'test', 'e2e', 'clients', 'kafka_python_group.py');
const KAFKA_PYTHON_PIN = '3.0.12';
const INSTALL_HINT =
  `Install the kafka-python test client first (as .ci/run does): python3 -m venv .venv-ci && ` +
  `.venv-ci/bin/pip install kafka-python==${KAFKA_PYTHON_PIN} && export KMC_PYTHON=$PWD/.venv-ci/bin/python`;

/** Checked before any server starts (spawnSync would block the in-process server). */
function kafkaPythonVersion(): string {
  const probe = spawnSync(PYTHON, ['-c', 'import kafka; print(kafka.__version__)'], { encoding: 'utf8', timeout: 30_000 });
  if (probe.error || probe.status !== 0) {
    const why = probe.error ? probe.error.message : (probe.stderr || '').trim().split('\n').pop();
    throw new Error(`kafka-python e2e test needs ${PYTHON} with kafka-python (${why}). ${INSTALL_HINT}`);
  }
  return probe.stdout.trim();
}

interface PyResult extends PythonClientResult {
  produced?: Record<string, number>;
  records?: ClientRecord[];
  committed?: Array<PartitionOffset & { error: string | null }>;
}

async function runClient(args: string[]): Promise<PyResult> {
  return runPythonClient<PyResult>('kafka-python', [SCRIPT, ...args, '--timeout', '30'], 45_000);
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

const version = kafkaPythonVersion();
let recorder: ApiVersionRecorder | null = null;

afterAll(() => {
  if (recorder) writeApiVersions('kafka-python', version, 'classic', recorder);
});

describe(`kafka-python ${version} against the server`, () => {
  it('classic group: produce, consume, commit, close; a new consumer resumes at the committed offsets', async () => {
    ({ recorder } = await runGroupResumeScenario(driver, 'classic', { topic: 'kpy-classic', group: 'kpy-classic-group' }));
  }, 180_000);
});

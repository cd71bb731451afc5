/**
 * franz-go's own integration tests against the server (issue 15): `TestClient_ProduceLargeMessages`
 * (a topic created with `max.message.bytes`=50 KiB: a 10 MiB record is refused by the broker with
 * MESSAGE_TOO_LARGE) and `TestConsumeRegex` (regex consumption skips the internal topic, which must
 * be `__consumer_offsets` listed with `is_internal`), and (issue 13) `TestTxnEtl`, its transaction
 * test (GroupTransactSession). They run as franz-go runs them, with `go test`
 * on the pinned module (test/clients/go/go.mod) and `KGO_SEEDS` pointing here; the first run
 * compiles the test binary (about a minute), later runs take Go's build cache. Skipped without Go.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from './clients/group-resume.js';
import { startTestServer } from '../support/server.js';

const GO_DIR = join(REPO_ROOT, 'test', 'clients', 'go');
const hasGo = spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0;

function goTest(seeds: string, pattern: string, env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('go', ['test', 'github.com/twmb/franz-go/pkg/kgo', '-run', pattern, '-count=1', '-v'], {
      cwd: GO_DIR,
      env: { ...process.env, KGO_SEEDS: seeds, KGO_TEST_RF: '1', KGO_LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe.skipIf(!hasGo)("franz-go's integration tests", () => {
  it('TestClient_ProduceLargeMessages and TestConsumeRegex pass', async () => {
    const server = await startTestServer();
    try {
      const { code, output } = await goTest(server.bootstrap, '^(TestClient_ProduceLargeMessages|TestConsumeRegex)$');
      expect(output, output).toContain('--- PASS: TestClient_ProduceLargeMessages/LargeMessage_FailureBroker');
      expect(output, output).toContain('--- PASS: TestConsumeRegex');
      expect(output).toContain('skipped_internal: [__consumer_offsets]');
      expect(code, output).toBe(0);
    } finally {
      await server.stop();
    }
  }, 660_000);

  // TestTxnEtl: a transactional producer (a new transaction every 10,000 records, ended with
  // EndAndBeginTransaction, alternately safe and, with KGO_TEST_UNSAFE, unsafe) feeds three levels
  // of GroupTransactSession consumers, each consuming read_committed and producing to the next
  // level in transactions with its offsets, with members joining and quitting mid-way (classic
  // range and cooperative-sticky, KIP-848, static members); every level must see every key exactly
  // once. KGO_TEST_RECORDS=30000 (franz-go's default is 500,000: about 40 s here when idle) keeps it
  // to a few producer transactions.
  it('TestTxnEtl (GroupTransactSession, six group flavours) passes', async () => {
    const server = await startTestServer();
    try {
      const { code, output } = await goTest(server.bootstrap, '^TestTxnEtl$', { KGO_TEST_RECORDS: '30000', KGO_TEST_UNSAFE: '1', KGO_LOG_LEVEL: 'warn' });
      for (const flavour of ['range', 'cooperative-sticky', 'range/848', 'sticky/848', 'cooperative-sticky/static', 'sticky/848/static']) {
        expect(output, output.slice(-20_000)).toContain(`--- PASS: TestTxnEtl/${flavour} `);
      }
      expect(output, output.slice(-20_000)).toContain('--- PASS: TestTxnEtl ');
      expect(code, output.slice(-20_000)).toBe(0);
    } finally {
      await server.stop();
    }
  }, 660_000);
});

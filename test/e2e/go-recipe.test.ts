/**
 * The README's recipe for a Go test suite (test/clients/go/mockbroker): `go test` on its package,
 * whose TestMain starts the built server with mockbroker.Start (`node dist/cli.cjs --in-memory
 * --port 0 --admin-port 0 --stop-when-stdin-closes`), and whose test produces and consumes with
 * franz-go through a fault rule it added over the admin API, then stops the server, and whose other
 * test restarts a server of its own on a data directory under a live producer. The first run
 * compiles the test binary; later runs take Go's build cache. Skipped without Go.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { REPO_ROOT } from '../support/clients.js';

const GO_DIR = join(REPO_ROOT, 'test', 'clients', 'go');
const CLI = join(REPO_ROOT, 'dist', 'cli.cjs');
const hasGo = spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0;

function goTest(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('go', ['test', './mockbroker/', '-count=1', '-v'], {
      cwd: GO_DIR,
      env: { ...process.env, KMC_SERVER: `${process.execPath} ${CLI}`, GOFLAGS: `${process.env['GOFLAGS'] ?? ''} -mod=readonly -buildvcs=false`.trim() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

it.skipIf(!hasGo)('mockbroker.Start starts the server for a Go suite, which consumes with franz-go through a fault rule; Close stops it', async () => {
  const run = await goTest();
  expect(run.code, run.output).toBe(0);
  expect(run.output).toMatch(/^started localhost:\d+ http:\/\/127\.0\.0\.1:\d+$/m);
  // The group's first OffsetCommit was answered COORDINATOR_NOT_AVAILABLE; franz-go committed again.
  expect(run.output).toMatch(/^consumed v0,v1,v2 committed 3 fired 1$/m);
  expect(run.output).toMatch(/^--- PASS: TestConsumesThroughAFaultRule/m);
  // Restart on a data directory: the same address, the records kept, the producer carrying on.
  expect(run.output).toMatch(/^restarted same=true before0,before1,before2,after0,after1,after2$/m);
  expect(run.output).toMatch(/^--- PASS: TestRestartOnDataDir/m);
  // AdvanceClock on a manual clock; a removed rule is gone.
  expect(run.output).toMatch(/^advanced 60000 rules 0$/m);
  // With --brokers 3, each broker's port by id from the ready line.
  expect(run.output).toMatch(/^brokers 3 first=true$/m);
  expect(run.output).toMatch(/^closed <nil>$/m);
}, 600_000);

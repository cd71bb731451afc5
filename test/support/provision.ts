/**
 * vitest globalSetup of `npm test`: provisions, once and idempotently, the real clients the
 * end-to-end suites run in other languages, so that `npm install && npm test` is the whole set-up:
 *
 * | step          | needs          | what, where (all git-ignored)                                              |
 * |---------------|----------------|----------------------------------------------------------------------------|
 * | python        | python3        | `.venv-ci/` with confluent-kafka (librdkafka) and kafka-python, pinned     |
 * | kafka-jars    | java, mvn      | Kafka 4.3.1's jars in `.kafka/4.3.1/libs` (scripts/fetch-kafka.sh)          |
 * | java-clients  | java, mvn      | test/clients/java built against kafka-clients 4.3.1 (`target/`)            |
 * | franz-go      | go             | test/clients/go built to `.tmp/bin/kmc-franz-go`                           |
 * | chromium      | chromium       | Debian's Chromium, found (not installed) for the web console's browser test |
 *
 * Each step prints one line (what it did, or that its cache was current). A step whose tool is
 * missing prints the tool and how to install it, and the suites that need it are skipped (see
 * test/support/clients.ts); with `KMC_REQUIRE_CLIENTS=1` (set by .ci/run) a missing tool fails
 * the run instead, so CI can never pass by skipping. A step that has its tool but fails (no
 * network, a broken build) fails the run: that is a defect to see, not a skip.
 *
 * The results reach the test files through vitest's `provide`/`inject` (key `clients`).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { REPO_ROOT, type ProvisionedClients, PINS } from './clients.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Async spawn (steps run concurrently); never throws: a missing command is code null + ENOENT. */
function run(cmd: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: options.cwd ?? REPO_ROOT, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('error', (err) => resolve({ code: null, stdout, stderr: stderr + err.message }));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Throws with the command's output unless it exited 0. */
async function mustRun(what: string, cmd: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<Run> {
  const out = await run(cmd, args, options);
  if (out.code !== 0) throw new Error(`provision: ${what} failed (${cmd} ${args.join(' ')}: exit ${out.code})\n${out.stdout.slice(-4000)}\n${out.stderr.slice(-4000)}`);
  return out;
}

/** Whether `cmd` runs at all (`cmd -version`/`--version` exits, whatever its status). */
async function have(cmd: string, versionFlag = '--version'): Promise<boolean> {
  return (await run(cmd, [versionFlag])).code !== null;
}

/** Newest modification time (ms) of the files directly in `dirs` whose names pass `keep`. */
function newestMtime(dirs: string[], keep: (name: string) => boolean): number {
  let newest = 0;
  for (const dir of dirs) {
    for (const name of readdirSync(dir)) if (keep(name)) newest = Math.max(newest, statSync(join(dir, name)).mtimeMs);
  }
  return newest;
}

const mtime = (file: string): number => (existsSync(file) ? statSync(file).mtimeMs : -1);

/** A tool the step needs is not installed: skip its suites (or fail under KMC_REQUIRE_CLIENTS). */
class MissingTool extends Error {
  constructor(
    readonly tool: string,
    readonly install: string,
  ) {
    super(`${tool} not found`);
  }
}

async function requireTools(tools: Array<[cmd: string, versionFlag: string, install: string]>): Promise<void> {
  for (const [cmd, flag, install] of tools) if (!(await have(cmd, flag))) throw new MissingTool(cmd, install);
}

const JAVA: [string, string, string] = ['java', '-version', 'apt-get install openjdk-17-jdk-headless'];
const MAVEN: [string, string, string] = ['mvn', '--version', 'apt-get install maven'];

const VENV = join(REPO_ROOT, '.venv-ci');
const VENV_PYTHON = join(VENV, 'bin', 'python');
const PYTHON_PACKAGES = [`confluent-kafka==${PINS.confluentKafka}`, `kafka-python==${PINS.kafkaPython}`];

const PROBE = ['-c', 'import confluent_kafka as c, kafka; print(c.__version__); print(c.libversion()[0]); print(kafka.__version__)'];

/**
 * `.venv-ci` made anew and filled with the pinned clients. A half-made one (an interrupted run,
 * a venv without pip, an interpreter upgraded away) is removed first, never trusted.
 */
async function installVenv(): Promise<void> {
  await requireTools([['python3', '--version', 'apt-get install python3 python3-venv']]);
  rmSync(VENV, { recursive: true, force: true });
  const made = await run('python3', ['-m', 'venv', VENV]);
  // Debian ships venv's ensurepip (pip) in a package of its own; without it the venv has no pip.
  if (made.code !== 0 || (await run(VENV_PYTHON, ['-m', 'pip', '--version'])).code !== 0) {
    rmSync(VENV, { recursive: true, force: true });
    throw new MissingTool('python3 venv module with pip', 'apt-get install python3-venv');
  }
  await mustRun('pip install', VENV_PYTHON, ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '-q', ...PYTHON_PACKAGES]);
}

/** Python with confluent-kafka and kafka-python: $KMC_PYTHON as given, else `.venv-ci` made and filled here. */
async function python(): Promise<{ detail: string; value: ProvisionedClients['python'] }> {
  let bin = process.env['KMC_PYTHON'];
  let did = 'cached';
  let probe: Run;
  if (bin !== undefined && bin !== '') {
    probe = await mustRun('importing the Python clients', bin, PROBE);
  } else {
    bin = VENV_PYTHON;
    // The stamp names the pins installed, so a changed pin reinstalls; it is written last.
    const stamp = join(VENV, 'kmc-requirements.txt');
    const wanted = PYTHON_PACKAGES.join('\n');
    const current = existsSync(stamp) && readFileSync(stamp, 'utf8') === wanted;
    probe = current ? await run(VENV_PYTHON, PROBE) : { code: 1, stdout: '', stderr: '' };
    if (probe.code !== 0) {
      await installVenv();
      writeFileSync(stamp, wanted);
      did = 'installed';
      probe = await mustRun('importing the Python clients', VENV_PYTHON, PROBE);
    }
  }
  const [confluentKafka = '?', librdkafka = '?', kafkaPython = '?'] = probe.stdout.trim().split('\n');
  return {
    detail: `${did} ${bin === VENV_PYTHON ? '.venv-ci' : bin} (confluent-kafka ${confluentKafka}, librdkafka ${librdkafka}, kafka-python ${kafkaPython})`,
    value: { bin, confluentKafka, librdkafka, kafkaPython },
  };
}

/** Kafka 4.3.1's jars (for Kafka's own DumpLogSegments), via scripts/fetch-kafka.sh, which caches. */
async function kafkaJars(): Promise<{ detail: string; value: string }> {
  const libs = join(REPO_ROOT, '.kafka', PINS.kafka, 'libs');
  const stamp = join(REPO_ROOT, '.kafka', PINS.kafka, '.complete');
  // The jars are run with java, cached or not.
  await requireTools([JAVA]);
  const complete = existsSync(stamp) && [`kafka-tools-${PINS.kafka}.jar`, `kafka_2.13-${PINS.kafka}.jar`].every((jar) => existsSync(join(libs, jar)));
  if (complete) return { detail: `cached .kafka/${PINS.kafka}/libs`, value: libs };
  rmSync(stamp, { force: true });
  await requireTools([MAVEN]);
  await mustRun('fetching the Kafka jars', join(REPO_ROOT, 'scripts', 'fetch-kafka.sh'), [], { env: { ...process.env, KAFKA_VERSION: PINS.kafka } });
  return { detail: `downloaded .kafka/${PINS.kafka}/libs`, value: libs };
}

const JAVA_DIR = join(REPO_ROOT, 'test', 'clients', 'java');

/** test/clients/java built with Maven unless every class is newer than its source; returns the `java -cp` class path. */
async function javaClients(): Promise<{ detail: string; value: string }> {
  const classes = join(JAVA_DIR, 'target', 'classes');
  const classpathFile = join(JAVA_DIR, 'target', 'classpath.txt');
  const sources = join(JAVA_DIR, 'src', 'main', 'java', 'kmc');
  // The programs run with java, cached or not.
  await requireTools([JAVA]);
  // Current: every class newer than its source, and every jar of the class path still in the
  // Maven repository (a cleaned ~/.m2 leaves a class path pointing at nothing).
  const current =
    existsSync(classpathFile) &&
    mtime(classpathFile) >= mtime(join(JAVA_DIR, 'pom.xml')) &&
    readFileSync(classpathFile, 'utf8').trim().split(':').every((jar) => existsSync(jar)) &&
    readdirSync(sources)
      .filter((f) => f.endsWith('.java'))
      .every((f) => mtime(join(classes, 'kmc', f.replace(/\.java$/, '.class'))) >= mtime(join(sources, f)));
  let did = 'cached';
  if (!current) {
    await requireTools([MAVEN]);
    await mustRun('building test/clients/java', 'mvn', ['-q', '-B', '-Dstyle.color=never', '-f', join(JAVA_DIR, 'pom.xml'), 'package', 'dependency:build-classpath', `-Dmdep.outputFile=${classpathFile}`]);
    did = 'built';
  }
  return { detail: `${did} test/clients/java (kafka-clients ${PINS.kafkaClients})`, value: `${classes}:${readFileSync(classpathFile, 'utf8').trim()}` };
}

const GO_DIR = join(REPO_ROOT, 'test', 'clients', 'go');

/** test/clients/go (franz-go) built to .tmp/bin unless newer than its sources, or $KMC_FRANZ_GO_BIN as given. */
async function franzGo(): Promise<{ detail: string; value: string }> {
  const fromEnv = process.env['KMC_FRANZ_GO_BIN'];
  if (fromEnv !== undefined && fromEnv !== '') {
    if (!existsSync(fromEnv)) throw new Error(`provision: KMC_FRANZ_GO_BIN=${fromEnv} does not exist`);
    return { detail: `given ${fromEnv}`, value: fromEnv };
  }
  const bin = join(REPO_ROOT, '.tmp', 'bin', 'kmc-franz-go');
  if (mtime(bin) >= newestMtime([GO_DIR], (n) => n.endsWith('.go') || n === 'go.mod' || n === 'go.sum')) {
    return { detail: 'cached .tmp/bin/kmc-franz-go', value: bin };
  }
  await requireTools([['go', 'version', 'apt-get install golang-go']]);
  mkdirSync(join(REPO_ROOT, '.tmp', 'bin'), { recursive: true });
  await mustRun('building test/clients/go', 'go', ['build', '-o', bin, '.'], {
    cwd: GO_DIR,
    env: { ...process.env, GOFLAGS: `${process.env['GOFLAGS'] ?? ''} -mod=readonly -buildvcs=false`.trim() },
  });
  return { detail: 'built .tmp/bin/kmc-franz-go', value: bin };
}

/**
 * Debian's `chromium` (or `KMC_CHROMIUM`), driven by playwright-core in test/e2e/console-browser:
 * the binary behind Debian's wrapper script when there is one (the wrapper only adds flags).
 */
async function chromium(): Promise<{ detail: string; value: string }> {
  const wanted = process.env['KMC_CHROMIUM'] ?? 'chromium';
  const found = (await run('sh', ['-c', `command -v "$0"`, wanted])).stdout.trim();
  if (found === '') throw new MissingTool(wanted, 'apt-get install chromium');
  const behindWrapper = '/usr/lib/chromium/chromium';
  const bin = process.env['KMC_CHROMIUM'] === undefined && existsSync(behindWrapper) ? behindWrapper : found;
  return { detail: `found ${bin}`, value: bin };
}

/** Runs one step, prints its line; a missing tool becomes null (a skip) unless KMC_REQUIRE_CLIENTS is set. */
async function step<T>(name: string, suites: string, body: () => Promise<{ detail: string; value: T }>): Promise<T | null> {
  const started = Date.now();
  try {
    const { detail, value } = await body();
    console.log(`provision ${name}: ${detail} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    return value;
  } catch (err) {
    if (!(err instanceof MissingTool)) throw err;
    const line = `provision ${name}: ${err.tool} not found (install: ${err.install}); skipping ${suites}`;
    if (['1', 'true'].includes(process.env['KMC_REQUIRE_CLIENTS'] ?? '')) throw new Error(`${line} — KMC_REQUIRE_CLIENTS=1 forbids skipping`);
    console.log(line);
    return null;
  }
}

const LOCK = join(REPO_ROOT, '.tmp', 'provision.lock');

/**
 * Runs `body` holding the provisioning lock of this clone, so that two test runs started together
 * do not build into the same caches at once. The lock is a directory holding the owner's pid; one
 * whose owner is gone (a killed run) is taken over.
 */
async function withLock<T>(body: () => Promise<T>): Promise<T> {
  mkdirSync(dirname(LOCK), { recursive: true });
  for (let waited = false; ; waited = true) {
    try {
      mkdirSync(LOCK);
      writeFileSync(join(LOCK, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(existsSync(join(LOCK, 'pid')) ? readFileSync(join(LOCK, 'pid'), 'utf8') : NaN);
      // Stale: its owner is gone, or it never got a pid (a run killed right after taking it), or
      // the wait outlasted any provisioning (the pid was reused by an unrelated process).
      const age = Date.now() - (existsSync(LOCK) ? statSync(LOCK).mtimeMs : 0);
      const stale = Number.isInteger(owner) ? !isAlive(owner) || age > 20 * 60_000 : age > 10_000;
      if (stale) {
        rmSync(LOCK, { recursive: true, force: true });
        continue;
      }
      if (!waited) console.log(`provision: waiting for another test run (pid ${owner}) to finish provisioning`);
      // The other run's provisioning ends by itself; look again shortly (there is no event for it).
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    return await body();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export default async function provision(project: TestProject): Promise<void> {
  await withLock(() => provisionAll(project));
}

async function provisionAll(project: TestProject): Promise<void> {
  // The two Maven steps run one after the other (one local repository), beside the others.
  const [pythonClients, maven, goBinary, browser] = await Promise.all([
    step('python', 'the librdkafka and kafka-python suites', python),
    (async () => {
      const jars = await step('kafka-jars', "the Kafka DumpLogSegments suite", kafkaJars);
      const java = await step('java-clients', 'the Java kafka-clients suites', javaClients);
      return { jars, java };
    })(),
    step('franz-go', 'the franz-go suite', franzGo),
    step('chromium', "the web console's browser test", chromium),
  ]);
  const provisioned: ProvisionedClients = { python: pythonClients, kafkaLibs: maven.jars, javaClasspath: maven.java, franzGo: goBinary, chromium: browser };
  project.provide('clients', provisioned);
}

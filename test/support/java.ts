/**
 * Runs the Java test programs of test/clients/java (org.apache.kafka:kafka-clients) from vitest:
 * test/support/provision.ts builds them, `runJava()` starts one program with `java -cp` and
 * collects its JSON result lines, and `recordApiVersions()` writes the API versions the server saw
 * (from its request log) to the api-versions.json of `apiVersionsPath`.
 */
import { describe } from 'vitest';
import { clients } from './clients.js';
import { apiVersionsPath } from './api-versions.js';
import { runProcess } from './process.js';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RequestLogEntry } from '../../src/index.js';

const HERE = dirname(fileURLToPath(import.meta.url));
export const JAVA_DIR = resolve(HERE, '..', 'clients', 'java');
const FRAGMENTS = join(JAVA_DIR, 'target', 'api-versions');
export const KAFKA_CLIENTS_VERSION = '4.3.1';

/** The `java -cp` class path of the programs (test/support/provision.ts builds them); null without java/mvn here. */
export const javaClasspath = clients().javaClasspath;

/** `describe` for suites that run the Java programs: skipped (with the provisioner's one line) when they could not be built. */
export const describeJava: ReturnType<typeof describe.skipIf> = describe.skipIf(javaClasspath === null);

export interface JavaRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** The JSON result lines (`{"event": ...}`) in order. */
  events: Array<Record<string, any>>;
}

export interface RunJavaOptions {
  timeoutMs?: number;
  /** Called for each result line; return true to kill the JVM with SIGKILL there (a crash without close). */
  killOn?: (event: Record<string, any>) => boolean;
  /** Client settings every program applies on top of its own (`-Dkmc.client.props`: security.protocol, sasl.*, ssl.*). */
  clientPropsFile?: string;
}

/** Runs `kmc.<mainClass>` asynchronously (the server shares this event loop: never spawnSync while it runs). */
export async function runJava(classpath: string, mainClass: string, args: string[], options: RunJavaOptions = {}): Promise<JavaRun> {
  const props = options.clientPropsFile ? [`-Dkmc.client.props=${options.clientPropsFile}`] : [];
  const events: Array<Record<string, any>> = [];
  let pending = '';
  const run = await runProcess('java', ['-Dorg.slf4j.simpleLogger.defaultLogLevel=warn', ...props, '-cp', classpath, `kmc.${mainClass}`, ...args], options.timeoutMs ?? 120_000, (chunk, child) => {
    pending += chunk;
    let nl;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl).trim();
      pending = pending.slice(nl + 1);
      if (!line.startsWith('{')) continue;
      const event = JSON.parse(line) as Record<string, any>;
      events.push(event);
      if (options.killOn?.(event)) child.kill('SIGKILL');
    }
  });
  return { ...run, events };
}

/** Fails with the program's output unless it exited 0. */
export function expectOk(run: JavaRun): JavaRun {
  if (run.code !== 0) throw new Error(`java exited ${run.code ?? run.signal}\nstdout:\n${run.stdout}\nstderr:\n${run.stderr.slice(-8000)}`);
  return run;
}

/** API name -> sorted distinct versions, from request log entries. */
export function versionsUsed(entries: readonly RequestLogEntry[]): Record<string, number[]> {
  const byApi = new Map<string, Set<number>>();
  for (const e of entries) {
    const key = `${e.api} (${e.apiKey})`;
    let set = byApi.get(key);
    if (!set) byApi.set(key, (set = new Set()));
    set.add(e.version);
  }
  return Object.fromEntries([...byApi].sort(([a], [b]) => apiKeyOf(a) - apiKeyOf(b)).map(([k, v]) => [k, [...v].sort((x, y) => x - y)]));
}

const apiKeyOf = (key: string): number => Number(/\((\d+)\)$/.exec(key)?.[1] ?? 0);

/**
 * Records the versions a scenario used and rewrites api-versions.json (see apiVersionsPath) from every
 * scenario recorded so far (one fragment per scenario under target/, so parallel test files do
 * not overwrite each other's results).
 */
export function recordApiVersions(scenario: string, entries: readonly RequestLogEntry[]): void {
  mkdirSync(FRAGMENTS, { recursive: true });
  writeFileSync(join(FRAGMENTS, `${scenario}.json`), JSON.stringify(versionsUsed(entries)));
  const scenarios: Record<string, Record<string, number[]>> = {};
  for (const f of readdirSync(FRAGMENTS).filter((n) => n.endsWith('.json')).sort()) {
    scenarios[f.slice(0, -'.json'.length)] = JSON.parse(readFileSync(join(FRAGMENTS, f), 'utf8')) as Record<string, number[]>;
  }
  const all = new Map<string, Set<number>>();
  for (const s of Object.values(scenarios)) for (const [api, vs] of Object.entries(s)) for (const v of vs) (all.get(api) ?? all.set(api, new Set()).get(api)!).add(v);
  const merged = Object.fromEntries([...all].sort(([a], [b]) => apiKeyOf(a) - apiKeyOf(b)).map(([k, v]) => [k, [...v].sort((x, y) => x - y)]));
  const doc = {
    client: `org.apache.kafka:kafka-clients ${KAFKA_CLIENTS_VERSION}`,
    source: 'the server request log of test/e2e/java-*.test.ts (regenerated by each run)',
    all: merged,
    scenarios,
  };
  const file = apiVersionsPath(join(JAVA_DIR, 'api-versions.json'));
  const tmp = `${file}.${process.pid}.tmp`;
  // Version lists on one line each: [4, 5].
  writeFileSync(tmp, `${JSON.stringify(doc, null, 2).replace(/\[\s+([\d,\s]+?)\s+\]/g, (_, list: string) => `[${list.replace(/\s+/g, ' ')}]`)}\n`);
  renameSync(tmp, file);
}

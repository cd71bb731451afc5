/**
 * Where the end-to-end suites write the API versions each real client sent. The tracked files the
 * README cites (test/clients/api-versions/*.json, test/clients/java/api-versions.json) are
 * refreshed only on request, with `KMC_RECORD_API_VERSIONS=1 npm test`; otherwise the same files go
 * under .tmp/api-versions/ (git-ignored), because what a client sends varies from run to run (a
 * heartbeat that falls inside a scenario or not) and a test run leaves the tree as it found it.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { REPO_ROOT } from './clients.js';

/** The file to write for the tracked file `trackedPath` (absolute); its folder exists. */
export function apiVersionsPath(trackedPath: string): string {
  const path = process.env['KMC_RECORD_API_VERSIONS'] === '1' ? trackedPath : join(REPO_ROOT, '.tmp', 'api-versions', relative(REPO_ROOT, trackedPath));
  mkdirSync(dirname(path), { recursive: true });
  return path;
}

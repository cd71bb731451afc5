#!/usr/bin/env node
// The `prepare` script: builds dist/ with tsc (tsconfig.build.json), bundles its entry points
// (scripts/bundle.mjs) and builds the web console with vite (console/ into dist/console).
//
// npm runs `prepare` in a clone (`npm install`), for a git dependency and for a folder dependency.
// Only for a git dependency does it install the devDependencies first. A folder
// (`npm install /path/to/clone`, linked, or packed with --install-links) gets the script run as
// it is: with a fresh clone there is no tsc, and a linked folder lacks even the runtime
// dependencies dist/ imports (npm installs none for a link). So when something is missing, install
// everything the lock file names into this folder first, then build.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/** Where Node would find package `name` from this folder: its node_modules, or a parent's (a workspace root). */
function packageDir(name) {
  for (let dir = root; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

function run(command, args) {
  // Only a bare `npm` needs a shell (npm.cmd on Windows); a shell would split a node path with spaces.
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' && command === 'npm' });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
}

const needed = [...Object.keys(pkg.dependencies ?? {}), 'typescript', '@types/node', 'vite', 'rolldown', 'uplot'];
if (!needed.every((name) => packageDir(name) !== undefined)) {
  // The npm running us passes its settings on as npm_config_* variables; the flags override the
  // ones that would install elsewhere (`npm install -g`) or skip the build tools (`--omit=dev`,
  // NODE_ENV=production). --no-save leaves package.json and package-lock.json alone;
  // --ignore-scripts keeps this script from running itself again.
  const execPath = process.env.npm_execpath;
  const npm = execPath?.endsWith('npm-cli.js') ? [process.execPath, execPath] : ['npm'];
  run(npm[0], [...npm.slice(1), 'install', '--no-save', '--ignore-scripts', '--include=dev', '--global=false', '--no-audit', '--no-fund']);
}
run(process.execPath, [join(packageDir('typescript'), 'bin', 'tsc'), '-p', join(root, 'tsconfig.build.json')]);
run(process.execPath, [join(root, 'scripts', 'bundle.mjs')]);
run(process.execPath, [join(packageDir('vite'), 'bin', 'vite.js'), 'build', '-c', join(root, 'console', 'vite.config.ts')]);

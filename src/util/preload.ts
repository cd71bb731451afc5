/**
 * Loads CommonJS packages a package at a time, one per turn of the event loop, so that a part
 * loaded on first use (the admin API's fastify and prom-client) does not hold the Kafka
 * connections for all of its loading at once (issue #16 item 5: the first admin request held the
 * Kafka port ~100 ms on a quiet machine, up to 360 ms on a loaded one; one package alone is at
 * most ~20 ms, ajv). The importer's own `require` then finds them in Node's module cache.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { nextTurn } from './slices.js';

/**
 * Requires `packages` (bare names, resolved from this module as the bundle's chunks resolve
 * them) and everything they depend on, dependencies before their dependents, each package in a
 * turn of its own. A package that cannot be required alone (a missing optional dependency, a
 * package without a main) is skipped: its dependent's own `require` meets it as it would have.
 */
export async function preloadPackages(packages: readonly string[]): Promise<void> {
  for (const { name, from } of dependencyOrder(packages)) {
    try {
      createRequire(from)(name);
    } catch {
      // Left for the dependent's own require.
    }
    await nextTurn();
  }
}

/** `packages` and their `dependencies`, leaves first, each resolved package once. */
function dependencyOrder(packages: readonly string[]): Array<{ name: string; from: string }> {
  const seen = new Set<string>();
  const order: Array<{ name: string; from: string }> = [];
  const visit = (name: string, from: string): void => {
    const manifest = manifestOf(name, from);
    if (manifest === null || seen.has(manifest)) return;
    seen.add(manifest);
    let dependencies: Record<string, string> = {};
    try {
      dependencies = (JSON.parse(readFileSync(manifest, 'utf8')) as { dependencies?: Record<string, string> }).dependencies ?? {};
    } catch {
      // No dependencies known: the package alone.
    }
    for (const dependency of Object.keys(dependencies)) visit(dependency, manifest);
    order.push({ name, from });
  };
  for (const name of packages) visit(name, import.meta.url);
  return order;
}

/**
 * The package.json of package `name` as `from` requires it: found up from its main file (a
 * package whose `exports` leave out `./package.json` cannot be resolved by that name); null when
 * it does not resolve.
 */
function manifestOf(name: string, from: string): string | null {
  let main: string;
  try {
    main = createRequire(from).resolve(name);
  } catch {
    return null;
  }
  for (let dir = dirname(main); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    try {
      if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === name) return manifest;
    } catch {
      return null;
    }
  }
  return null;
}

/**
 * The image's build stage runs scripts/bundle.mjs, so every script it imports (transitively, by a
 * relative specifier) must be both let into the build context by .dockerignore's allow-list and
 * copied by docker/Dockerfile. A missing one only showed in the container suite at the end of CI;
 * this catches it in `npm test`.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** scripts/bundle.mjs and the scripts it imports, as paths relative to the project root. */
function bundleScripts(): string[] {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    const path = relative(ROOT, file);
    if (seen.has(path)) return;
    seen.add(path);
    const source = readFileSync(file, 'utf8');
    for (const [, specifier] of source.matchAll(/^import[^'"]*['"](\.{1,2}\/[^'"]+)['"]/gm)) visit(resolve(dirname(file), specifier!));
  };
  visit(join(ROOT, 'scripts', 'bundle.mjs'));
  return [...seen].sort();
}

describe('the Docker build context', () => {
  const allowed = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('!'))
    .map((line) => line.slice(1));
  const copies = readFileSync(join(ROOT, 'docker', 'Dockerfile'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('COPY '))
    .flatMap((line) => line.split(/\s+/).slice(1, -1));

  it('holds scripts/bundle.mjs and every script it imports', () => {
    const scripts = bundleScripts();
    expect(scripts).toContain('scripts/lazy-codecs-plugin.mjs');
    expect(scripts.filter((script) => !allowed.includes(script))).toEqual([]);
    expect(scripts.filter((script) => !copies.includes(script))).toEqual([]);
  });
});

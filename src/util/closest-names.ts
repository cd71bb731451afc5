/**
 * "Did you mean ...?" for a name that matches none of a known set (a fault rule's Kafka error
 * name): the known names a few edits away, or that hold the given one (a prefix or a fragment).
 */

/** Levenshtein distance: the fewest single-character insertions, deletions and substitutions from `a` to `b`. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The names of `known` closest to `given` (compared as given: normalize case before), best
 * first, at most `most`: those within a third of `given`'s length in edits (at least 2), and,
 * when both have 4 characters or more, those that contain `given` (a prefix: REBALANCE) or that
 * `given` contains (an old, longer name: NOT_COORDINATOR_FOR_GROUP). Ties go alphabetically.
 * Empty: nothing close.
 */
export function closestNames(given: string, known: Iterable<string>, most = 3): string[] {
  const within = Math.max(2, Math.floor(given.length / 3));
  const close: Array<{ name: string; distance: number }> = [];
  for (const name of known) {
    const distance = editDistance(given, name);
    const contained = given.length >= 4 && name.length >= 4 && (name.includes(given) || given.includes(name));
    if (distance <= within || contained) close.push({ name, distance });
  }
  close.sort((x, y) => x.distance - y.distance || (x.name < y.name ? -1 : 1));
  return close.slice(0, most).map((c) => c.name);
}

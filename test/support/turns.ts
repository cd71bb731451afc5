/** Counts turns of the event loop (a `setImmediate` chain) from now until `stop()`: what a test of work in slices counts instead of timing it. */
export function countTurns(): { readonly turns: number; stop(): void } {
  let turns = 0;
  let counting = true;
  const count = (): void => {
    turns++;
    if (counting) setImmediate(count);
  };
  setImmediate(count);
  return {
    get turns() {
      return turns;
    },
    stop() {
      counting = false;
    },
  };
}

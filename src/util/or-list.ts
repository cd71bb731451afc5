/** Names in a sentence: 'a', 'a or b', 'a, b or c'. */
export function orList(items: readonly string[]): string {
  return items.length > 1 ? `${items.slice(0, -1).join(', ')} or ${items.at(-1)!}` : items.join('');
}

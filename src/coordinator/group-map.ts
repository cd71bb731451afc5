/**
 * Every group of every type under its id, in one map (Kafka 4.3's `GroupMetadataManager.groups`):
 * an id holds at most one group, classic or consumer (later share and streams), so no coordinator
 * has to ask another whether an id is taken. Each coordinator works on a typed view of it.
 */

/** What every group is known by. */
export interface KeyedGroup {
  readonly groupId: string;
}

/** The groups of one type, as a Map of that type (the view a coordinator holds). */
export interface GroupView<T extends KeyedGroup> {
  get(groupId: string): T | undefined;
  has(groupId: string): boolean;
  /** Puts a group of this type under its id; throws if a group of another type holds the id. */
  set(groupId: string, group: T): this;
  /** Removes the group of this type held under the id; false when the id holds none. */
  delete(groupId: string): boolean;
  values(): IterableIterator<T>;
  keys(): IterableIterator<string>;
  /** Whether any group, of any type, holds the id. */
  taken(groupId: string): boolean;
}

export class GroupMap<G extends KeyedGroup = KeyedGroup> {
  private readonly groups = new Map<string, G>();

  /** The group holding the id, of whatever type. */
  get(groupId: string): G | undefined {
    return this.groups.get(groupId);
  }

  /** Every group, of every type, in creation order. */
  all(): IterableIterator<G> {
    return this.groups.values();
  }

  /** The view of the groups `is` accepts. */
  view<T extends G>(is: (group: G) => group is T): GroupView<T> {
    const groups = this.groups;
    const own = (groupId: string): T | undefined => {
      const g = groups.get(groupId);
      return g !== undefined && is(g) ? g : undefined;
    };
    function* ofType(): IterableIterator<T> {
      for (const g of groups.values()) if (is(g)) yield g;
    }
    const view: GroupView<T> = {
      get: own,
      has: (groupId) => own(groupId) !== undefined,
      set(groupId, group) {
        const held = groups.get(groupId);
        if (held !== undefined && !is(held)) throw new Error(`group ${groupId} is held by a group of another type`);
        groups.set(groupId, group);
        return view;
      },
      delete: (groupId) => own(groupId) !== undefined && groups.delete(groupId),
      values: ofType,
      *keys() {
        for (const g of ofType()) yield g.groupId;
      },
      taken: (groupId) => groups.has(groupId),
    };
    return view;
  }
}

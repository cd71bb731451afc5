import { describe, expect, it } from 'vitest';
import { IdleConnections, type IdleClosable, type IdleNode } from '../../src/server/idle-connections.js';
import { ManualTime } from '../../src/util/manual-time.js';

/** A connection that records when it was closed for being idle. */
class Fake implements IdleClosable {
  idleNode: IdleNode | null = null;
  closedAfter: number | null = null;
  constructor(readonly name: string, private readonly closed: string[]) {}
  closeIdle(idleMs: number): void {
    this.closedAfter = idleMs;
    this.closed.push(this.name);
  }
}

describe('IdleConnections (connections.max.idle.ms)', () => {
  it('closes connections in the order they went idle, each exactly when its idle time is reached', () => {
    const time = new ManualTime(1_000_000);
    const idle = new IdleConnections(time, 1000);
    const closed: string[] = [];
    const [a, b, c] = ['a', 'b', 'c'].map((n) => new Fake(n, closed)) as [Fake, Fake, Fake];
    idle.add(a);
    time.advance(100);
    idle.add(b);
    time.advance(100);
    idle.add(c);
    // a active again after c: c, then b, are the least recently active now.
    time.advance(100);
    idle.touch(a);
    time.advance(799);
    expect(closed).toEqual([]);
    time.advance(1); // b: 1000 ms since it opened
    expect(closed).toEqual(['b']);
    expect(b.closedAfter).toBe(1000);
    expect(b.idleNode).toBeNull();
    time.advance(99);
    expect(closed).toEqual(['b']);
    time.advance(1); // c
    expect(closed).toEqual(['b', 'c']);
    idle.touch(a); // active again at 1,001,200: due at 1,002,200
    time.advance(999);
    expect(closed).toEqual(['b', 'c']);
    time.advance(1);
    expect(closed).toEqual(['b', 'c', 'a']);
    expect(a.closedAfter).toBe(1000);
  });

  it('a connection removed (closed by its client) is never closed for being idle, and the rest keep their order', () => {
    const time = new ManualTime(0);
    const idle = new IdleConnections(time, 500);
    const closed: string[] = [];
    const conns = Array.from({ length: 5 }, (_, i) => new Fake(`c${i}`, closed));
    for (const c of conns) idle.add(c);
    // Touched in reverse, one millisecond apart: c4 least recently active, c0 most.
    for (const c of [...conns].reverse()) {
      time.advance(1);
      idle.touch(c);
    }
    idle.remove(conns[4]!);
    idle.remove(conns[2]!);
    idle.touch(conns[2]!); // no longer tracked: nothing happens
    time.advance(2000);
    expect(closed).toEqual(['c3', 'c1', 'c0']);
  });

  it('does nothing when disabled (-1)', () => {
    const time = new ManualTime(0);
    const idle = new IdleConnections(time, -1);
    const closed: string[] = [];
    const c = new Fake('c', closed);
    idle.add(c);
    idle.touch(c);
    time.advance(10 ** 9);
    expect(closed).toEqual([]);
    expect(c.idleNode).toBeNull();
  });
});

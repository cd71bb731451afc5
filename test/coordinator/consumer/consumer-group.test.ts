/**
 * `ConsumerGroup`'s members per subscribed regex (Kafka's `subscribedRegularExpressions`), kept as
 * members are updated, removed and the group cloned.
 */
import { describe, expect, it } from 'vitest';
import { ConsumerGroup } from '../../../src/coordinator/consumer/consumer-group.js';
import { newMember, type ConsumerGroupMember } from '../../../src/coordinator/consumer/member.js';

const member = (id: string, regex: string): ConsumerGroupMember => ({ ...newMember(id), subscribedTopicRegex: regex });
const counts = (g: ConsumerGroup) => Object.fromEntries(g.subscribedRegularExpressions);

describe('ConsumerGroup regex subscriptions', () => {
  it('counts members per regex through joins, regex changes, removals and clones', () => {
    const g = new ConsumerGroup('g');
    g.updateMember(member('a', 'orders-.*'));
    g.updateMember(member('b', 'orders-.*'));
    g.updateMember(member('c', ''));
    expect(counts(g)).toEqual({ 'orders-.*': 2 });
    expect(g.numSubscribedMembers('orders-.*')).toBe(2);

    g.updateMember(member('b', 'audit'));
    expect(counts(g)).toEqual({ 'orders-.*': 1, audit: 1 });
    g.updateMember(member('b', 'audit')); // unchanged: counted once
    expect(g.numSubscribedMembers('audit')).toBe(1);

    const copy = g.clone();
    g.removeMember('a');
    g.updateMember(member('b', ''));
    expect(counts(g)).toEqual({});
    expect(g.numSubscribedMembers('orders-.*')).toBe(0);
    expect(counts(copy)).toEqual({ 'orders-.*': 1, audit: 1 });
  });
});

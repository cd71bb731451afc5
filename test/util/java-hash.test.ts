import { describe, it, expect } from 'vitest';
import { javaStringHashCode, offsetsPartitionFor } from '../../src/util/java-hash.js';

describe('group -> __consumer_offsets partition', () => {
  it.each([
    ['b1.offsets.group', 1463411122, 22],
    ['b1.proto.consumer.group', -1396975668, 18],
    ['test-group', 627841412, 12],
    ['my-group', -1906497762, 12],
    ['console-consumer-12345', 158455506, 6],
    ['groupé', -1237460406, 6],
    ['😀', 1772899, 49],
    ['', 0, 0],
    ['polygenelubricants', -2147483648, 0],
  ])('%s has Java hashCode %i and lands in partition %i of 50', (group, hash, partition) => {
    expect(javaStringHashCode(group)).toBe(hash);
    expect(offsetsPartitionFor(group, 50)).toBe(partition);
  });
});

/**
 * The request log keeps 1,000 requests: what it keeps of each request's names is bounded
 * (`LOGGED_NAMES_MAX` names, `LOGGED_NAMES_CHARS` characters), so requests naming tens of
 * thousands of long ids cannot fill the heap (adversarial trial 11: 4 GiB, then out of memory),
 * while fault rules still match on every name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startTestServer } from '../support/server.js';
import { LOGGED_NAMES_CHARS, LOGGED_NAMES_MAX } from '../../src/faults/request-info.js';

describe('request log bounds', () => {
  let server: Awaited<ReturnType<typeof startTestServer>>;
  let client: RawClient;
  beforeAll(async () => {
    server = await startTestServer();
    client = await RawClient.connect(server.port);
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  it('keeps the first names of a request within the bounds, and a rule still sees the last one', async () => {
    expect([LOGGED_NAMES_MAX, LOGGED_NAMES_CHARS]).toEqual([100, 8192]);
    const long = Array.from({ length: 20_000 }, (_, i) => `${String(i).padStart(5, '0')}-${'t'.repeat(234)}`);
    const rule = server.faults.add({ match: { api: 'Metadata', topic: long.at(-1)! }, action: { type: 'delay', ms: 0 } });
    const res = await client.send(3, 12, { topics: long.map((name) => ({ topicId: 'AAAAAAAAAAAAAAAAAAAAAA', name })), allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
    expect(res.topics).toHaveLength(20_000);
    expect(server.faults.list().find((r) => r.id === rule.id)!.fired).toBe(1);
    // 240 characters each: 34 fit in 8,192.
    const [entry] = server.faults.requests({ api: 'Metadata', limit: 1 });
    expect(entry!.topics).toEqual(long.slice(0, 34));

    // Short names: the first 100.
    const short = Array.from({ length: 500 }, (_, i) => `g${i}`);
    await client.send(15, 5, { groups: short, includeAuthorizedOperations: false });
    const [described] = server.faults.requests({ api: 'DescribeGroups', limit: 1 });
    expect(described!.groups).toEqual(short.slice(0, 100));
    expect(server.faults.requests({ group: 'g99' })).toHaveLength(1);
    expect(server.faults.requests({ group: 'g100' })).toHaveLength(0);
  });
});

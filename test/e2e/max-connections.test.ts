/**
 * `max.connections`, `max.connections.per.ip` and `max.connections.per.ip.overrides`, as Kafka's
 * `ConnectionQuotas` (issue #16, bounded memory): over the per-address limit a new connection is
 * closed at once; over `max.connections` it waits unread until another closes (Kafka's acceptor
 * blocks). Shown by order of events, never by time. Validated as `KafkaConfig`; described and
 * changed dynamically through DescribeConfigs and IncrementalAlterConfigs.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startClosableServer } from '../support/server.js';
import { RawClient } from '../support/raw-client.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type { ServerHandle } from '../../src/index.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

// DescribeConfigs sources below: DYNAMIC_BROKER_CONFIG 2, STATIC_BROKER_CONFIG 4, DEFAULT_CONFIG 5.
const API_VERSIONS = { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1' };

async function open(port: number): Promise<RawClient> {
  const c = await RawClient.connect(port);
  cleanups.push(() => c.close());
  return c;
}

/** Resolves once the server has closed the client's connection. */
function closedByServer(c: RawClient): Promise<void> {
  return c.closed ? Promise.resolve() : new Promise((resolve) => c.socket.once('close', () => resolve()));
}

/** Under a limit of 2 from 127.0.0.1: two connections are served, a third is closed at once. Returns the two. */
async function twoServedThirdClosed(server: ServerHandle): Promise<[RawClient, RawClient]> {
  const a = await open(server.port);
  const b = await open(server.port);
  expect((await a.send(18, 3, API_VERSIONS)).errorCode).toBe(ErrorCode.NONE);
  expect((await b.send(18, 3, API_VERSIONS)).errorCode).toBe(ErrorCode.NONE);
  const c = await open(server.port);
  await closedByServer(c);
  expect(c.closed).toBe(true);
  expect(server.connections.open).toBe(2);
  return [a, b];
}

describe('max.connections.per.ip', () => {
  it('a third connection from the same address is closed at once; once one closes, a new one is served', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true, config: { 'max.connections.per.ip': 2 } });
    const [a, b] = await twoServedThirdClosed(server);
    const aClosed = closedByServer(a);
    a.close();
    await aClosed;
    while (server.connections.open !== 1) await new Promise((resolve) => setImmediate(resolve));
    const d = await open(server.port);
    expect((await d.send(18, 3, API_VERSIONS)).errorCode).toBe(ErrorCode.NONE);
    expect((await b.send(18, 3, API_VERSIONS)).errorCode).toBe(ErrorCode.NONE);
  });

  it('an override for the address takes the place of the default, which may then be 0', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true, config: { 'max.connections.per.ip': 0, 'max.connections.per.ip.overrides': '10.1.2.3:5,127.0.0.1:1' } });
    const a = await open(server.port);
    expect((await a.send(18, 3, API_VERSIONS)).errorCode).toBe(ErrorCode.NONE);
    const b = await open(server.port);
    await closedByServer(b);
    expect(b.closed).toBe(true);
    expect(a.closed).toBe(false);
    expect((await a.send(18, 3, API_VERSIONS)).errorCode).toBe(ErrorCode.NONE);
  });

  it("an override's count with a leading '+' is that count, as max.connections.per.ip's own value is (Integer.parseInt takes both)", async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true, config: { 'max.connections.per.ip': '+0', 'max.connections.per.ip.overrides': '127.0.0.1:+2' } });
    await twoServedThirdClosed(server);
  });

  it('set dynamically on the broker (IncrementalAlterConfigs): the next connection is held to it, open ones stay', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const admin = await open(server.port);
    const other = await open(server.port);
    const altered = await admin.send(44, 1, { resources: [{ resourceType: 4, resourceName: '1', configs: [{ name: 'max.connections.per.ip', configOperation: 0, value: '2' }] }], validateOnly: false });
    expect(altered.responses.map((r) => r.errorCode)).toEqual([ErrorCode.NONE]);
    const described = await admin.send(32, 4, { resources: [{ resourceType: 4, resourceName: '1', configurationKeys: ['max.connections.per.ip', 'max.connections'] }], includeSynonyms: false, includeDocumentation: false });
    expect(described.results[0]!.configs.map((c) => [c.name, c.value, c.configSource])).toEqual([
      ['max.connections', '2147483647', 5],
      ['max.connections.per.ip', '2', 2],
    ]);
    const third = await open(server.port);
    await closedByServer(third);
    expect((await other.send(18, 3, API_VERSIONS)).errorCode).toBe(ErrorCode.NONE);
  });
});

describe('max.connections', () => {
  it('over the limit a new connection waits unread; it is served once another closes', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true, config: { 'max.connections': 2 } });
    const a = await open(server.port);
    const b = await open(server.port);
    expect((await a.send(18, 3, API_VERSIONS)).errorCode).toBe(ErrorCode.NONE);
    const order: string[] = [];
    const c = await open(server.port);
    const cAnswered = c.send(18, 3, API_VERSIONS).then((r) => {
      order.push('c answered');
      return r;
    });
    while (server.connections.waitingForSlot !== 1 && order.length === 0) await new Promise((resolve) => setImmediate(resolve));
    expect(server.connections.open).toBe(2);
    // Still served: the connections admitted.
    expect((await b.send(18, 3, API_VERSIONS)).errorCode).toBe(ErrorCode.NONE);
    expect(order).toEqual([]);
    order.push('a closed');
    a.close();
    expect((await cAnswered).errorCode).toBe(ErrorCode.NONE);
    expect(order).toEqual(['a closed', 'c answered']);
    expect(server.connections.waitingForSlot).toBe(0);
    expect(server.connections.open).toBe(2);
  });

  it("at most socket.listen.backlog.size connections wait for a slot, as in Kafka's backlog: one more is closed at once", async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true, config: { 'max.connections': 1, 'socket.listen.backlog.size': 2 } });
    const a = await open(server.port);
    expect((await a.send(18, 3, API_VERSIONS)).errorCode).toBe(ErrorCode.NONE);
    const waiting = [await open(server.port), await open(server.port)];
    while (server.connections.waitingForSlot !== 2) await new Promise((resolve) => setImmediate(resolve));
    const extra = await open(server.port);
    await closedByServer(extra);
    expect(extra.closed).toBe(true);
    expect(server.connections.waitingForSlot).toBe(2);
    expect(waiting.map((c) => c.closed)).toEqual([false, false]);
    // The waiting ones are still served in turn.
    a.close();
    expect((await waiting[0]!.send(18, 3, API_VERSIONS)).errorCode).toBe(ErrorCode.NONE);
    expect(server.connections.waitingForSlot).toBe(1);
  });

  it('raised dynamically (IncrementalAlterConfigs): a connection waiting for a slot is served at once, none closing', async () => {
    // Kafka's ConnectionQuotas.updateBrokerMaxConnections wakes the acceptor waiting for a slot.
    const { server } = await startClosableServer(cleanups, { inMemory: true, config: { 'max.connections': 2 } });
    const a = await open(server.port);
    const b = await open(server.port);
    expect((await a.send(18, 3, API_VERSIONS)).errorCode).toBe(ErrorCode.NONE);
    const c = await open(server.port);
    const cAnswered = c.send(18, 3, API_VERSIONS);
    while (server.connections.waitingForSlot !== 1) await new Promise((resolve) => setImmediate(resolve));
    const altered = await a.send(44, 1, { resources: [{ resourceType: 4, resourceName: '1', configs: [{ name: 'max.connections', configOperation: 0, value: '3' }] }], validateOnly: false });
    expect(altered.responses.map((r) => r.errorCode)).toEqual([ErrorCode.NONE]);
    expect((await cAnswered).errorCode).toBe(ErrorCode.NONE);
    expect(server.connections.waitingForSlot).toBe(0);
    expect(server.connections.open).toBe(3);
    expect([a.closed, b.closed, c.closed]).toEqual([false, false, false]);
  });

  it('described as set at start (STATIC_BROKER_CONFIG)', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true, config: { 'max.connections': 100, 'max.connections.per.ip.overrides': '127.0.0.1:50' } });
    const c = await open(server.port);
    const described = await c.send(32, 4, { resources: [{ resourceType: 4, resourceName: '1', configurationKeys: ['max.connections', 'max.connections.per.ip.overrides'] }], includeSynonyms: false, includeDocumentation: false });
    expect(described.results[0]!.configs.map((x) => [x.name, x.value, x.configSource, x.readOnly])).toEqual([
      ['max.connections', '100', 4, false],
      ['max.connections.per.ip.overrides', '127.0.0.1:50', 4, false],
    ]);
  });
});

describe('validation, as KafkaConfig', () => {
  it.each([
    [{ 'max.connections.per.ip': 0 }, 'max.connections.per.ip can be set to zero only if max.connections.per.ip.overrides property is set.'],
    [{ 'max.connections.per.ip.overrides': 'bad host:3' }, 'max.connections.per.ip.overrides contains invalid addresses : bad host'],
    [{ 'max.connections.per.ip.overrides': '127.0.0.1:many' }, 'invalid config max.connections.per.ip.overrides: For input string: "many"'],
    // Beyond an int, as Integer.parseInt (it took any safe integer); a sign alone is no number.
    [{ 'max.connections.per.ip.overrides': '127.0.0.1:2147483648' }, 'invalid config max.connections.per.ip.overrides: For input string: "2147483648"'],
    [{ 'max.connections.per.ip.overrides': '127.0.0.1:+' }, 'invalid config max.connections.per.ip.overrides: For input string: "+"'],
    [{ 'max.connections': -1 }, 'max.connections'],
  ])('%o is refused at start', async (config, message) => {
    await expect(startClosableServer(cleanups, { inMemory: true, config })).rejects.toThrow(message);
  });
});

/** IncrementalAlterConfigs v1 of one broker config (operation 0 SET, 1 DELETE) on broker resource `resourceName`. */
async function alter(c: RawClient, resourceName: string, name: string, configOperation: number, value: string | null): Promise<void> {
  const res = await c.send(44, 1, { resources: [{ resourceType: 4, resourceName, configs: [{ name, configOperation, value }] }], validateOnly: false });
  expect(res.responses.map((r) => r.errorCode)).toEqual([ErrorCode.NONE]);
}

// Limits changed at run time apply to the next connection (the listeners cache the limits per
// config change, src/server/listener-set.ts); a host named in an override is resolved at the change,
// as Kafka's ConnectionQuotas does.
describe('connection limits changed at run time', () => {
  it('max.connections.per.ip as the cluster-wide default: the next connection is held to it; deleted, the next is served', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const admin = await open(server.port);
    await alter(admin, '', 'max.connections.per.ip', 0, '1');
    const refused = await open(server.port);
    await closedByServer(refused);
    expect(refused.closed).toBe(true);
    await alter(admin, '', 'max.connections.per.ip', 1, null);
    const served = await open(server.port);
    expect((await served.send(18, 3, API_VERSIONS)).errorCode).toBe(ErrorCode.NONE);
    expect(admin.closed).toBe(false);
  });

  it('max.connections.per.ip.overrides naming localhost, set on the broker: the next connection from 127.0.0.1 is held to it', async () => {
    const { server } = await startClosableServer(cleanups, { inMemory: true });
    const admin = await open(server.port);
    await alter(admin, '1', 'max.connections.per.ip.overrides', 0, 'localhost:1');
    const refused = await open(server.port);
    // Closed unanswered (before the fix it was served: the name was not yet resolved).
    const outcome = await Promise.race([closedByServer(refused).then(() => 'closed'), refused.send(18, 3, API_VERSIONS).then(() => 'answered', () => 'closed')]);
    expect(outcome).toBe('closed');
    expect((await admin.send(18, 3, API_VERSIONS)).errorCode).toBe(ErrorCode.NONE);
  });
});

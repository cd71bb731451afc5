/**
 * A gzip "bomb" Produce over real sockets: a 256 KiB gzip batch whose one record inflates to 256 MiB.
 * Kafka 4.3.1 accepts such a batch (its LogValidator reads the records through a stream, with no
 * inflated-size limit; checked against a real broker on 2026-12-03), and so does the server, but
 * reading it as it inflates, in bounded chunks off the event loop (records/gzip-records.ts): another
 * connection's requests sent one after the other after the bomb are answered before the bomb's Produce.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer } from '../support/server.js';
import { createTopic, produce } from '../support/raw-transactions.js';
import { rawBatch } from '../support/raw-records.js';
import { gzipBombRecords } from '../support/gzip-bomb.js';
import { ErrorCode } from '../../src/protocol/errors.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('a gzip bomb on Produce', () => {
  it('is accepted as Kafka accepts it, while another connection\'s ApiVersions, three in turn sent after it, are answered first', async () => {
    const { server } = await startClosableServer(cleanups, {}, 'kmc-gzip-bomb-');
    const producer = await RawClient.connect(server.port);
    const other = await RawClient.connect(server.port);
    cleanups.push(() => void producer.socket.destroy(), () => void other.socket.destroy());
    await createTopic(producer, 'bomb');
    const bomb = gzipBombRecords(256);
    const batch = rawBatch(Buffer.alloc(0), 1, { codec: 1, payload: bomb.compressed });
    expect(batch.length).toBeLessThan(300 * 1024);

    const answered: string[] = [];
    const produced = produce(producer, 'bomb', null, batch).then((p) => {
      answered.push('produce');
      return p;
    });
    // Once the bomb is with the kernel, three ApiVersions one after the other, each sent on the last one's answer.
    await new Promise((resolve) => producer.socket.write(Buffer.alloc(0), resolve));
    for (let i = 0; i < 3; i++) {
      expect((await other.send(18, 3, { clientSoftwareName: 'kmc-test', clientSoftwareVersion: '1' })).errorCode).toBe(ErrorCode.NONE);
      answered.push('api-versions');
    }
    expect(await produced).toMatchObject({ errorCode: ErrorCode.NONE, baseOffset: 0n });
    expect(answered).toEqual(['api-versions', 'api-versions', 'api-versions', 'produce']);
    expect(server.broker.topics.get('bomb')!.partition(0)!.logEndOffset).toBe(1n);
  });
});

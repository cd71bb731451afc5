import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RawClient } from '../support/raw-client.js';
import { startClosableServer, tempDataDir } from '../support/server.js';
import { createTopics, topic } from '../support/big-requests.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import { defaultInitProducerIdRequest } from '../../src/protocol/messages/InitProducerIdRequest.js';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));

/** The built command line on `dataDir`, expected to refuse to start; its exit status and stderr. */
function refusedOn(dataDir: string): { status: number | null; stderr: string } {
  const res = spawnSync(process.execPath, [CLI, '--no-admin', '--port', '0', '--data-dir', dataDir], { encoding: 'utf8', timeout: 60_000 });
  return { status: res.status, stderr: res.stderr };
}

/** A data directory a server has started on (meta.properties, kmc-producer-ids.json written) and stopped. */
async function usedDataDir(): Promise<{ dir: string; remove: () => void }> {
  const data = tempDataDir();
  const cleanups: Array<() => Promise<void> | void> = [];
  const { server, close } = await startClosableServer(cleanups, { dataDir: data.dir });
  const client = await RawClient.connect(server.port);
  expect((await client.send(19, 7, createTopics([topic('kept', 2)]))).topics[0]!.errorCode).toBe(ErrorCode.NONE);
  expect((await client.send(22, 4, { ...defaultInitProducerIdRequest(), transactionalId: null, transactionTimeoutMs: 60000 })).errorCode).toBe(ErrorCode.NONE);
  client.close();
  await close();
  return data;
}

describe('the data directory’s metadata files at start', () => {
  it('leaves partition.metadata files that already hold the topic id untouched at a restart (a full disk cannot fail it)', async () => {
    const data = await usedDataDir();
    try {
      const files = [0, 1].map((p) => join(data.dir, `kept-${p}`, 'partition.metadata'));
      const before = files.map((f) => statSync(f).ino);
      const cleanups: Array<() => Promise<void> | void> = [];
      const { close } = await startClosableServer(cleanups, { dataDir: data.dir });
      await close();
      // Rewritten via a temp file and a rename, a file would have a new inode.
      expect(files.map((f) => statSync(f).ino)).toEqual(before);
    } finally {
      data.remove();
    }
  });

  it('leaves a KRaft metadata log (__cluster_metadata-0, as in a Kafka 4.3.1 data directory) alone: no topic of that name', async () => {
    const data = await usedDataDir();
    try {
      const raft = join(data.dir, '__cluster_metadata-0');
      mkdirSync(raft);
      writeFileSync(join(raft, '00000000000000000000.log'), Buffer.alloc(0));
      writeFileSync(join(raft, 'partition.metadata'), 'version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ\n');
      const cleanups: Array<() => Promise<void> | void> = [];
      const { server, close } = await startClosableServer(cleanups, { dataDir: data.dir });
      try {
        const client = await RawClient.connect(server.port);
        const md = await client.send(3, 12, { topics: null, allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
        expect(md.topics.map((t) => t.name).sort()).toEqual(['kept']);
        client.close();
      } finally {
        await close();
      }
    } finally {
      data.remove();
    }
  });

  it('refuses a meta.properties without cluster.id, naming the file, instead of starting as a new cluster', async () => {
    const data = await usedDataDir();
    try {
      const file = join(data.dir, 'meta.properties');
      writeFileSync(file, '#\n#kafka-mock-coordinator\nnode.id=1\n');
      expect(refusedOn(data.dir)).toEqual({
        status: 2,
        stderr: `kafka-mock-coordinator: ${file} has no cluster.id: it is damaged; restore it (cluster.id=<id>) or remove it to start as a new cluster\n`,
      });
    } finally {
      data.remove();
    }
  });

  it('refuses a damaged kmc-producer-ids.json, naming the file', async () => {
    const data = await usedDataDir();
    try {
      const file = join(data.dir, 'kmc-producer-ids.json');
      writeFileSync(file, '{"nextBlo');
      const half = refusedOn(data.dir);
      expect(half.status).toBe(2);
      expect(half.stderr).toMatch(new RegExp(`^kafka-mock-coordinator: ${file} is not valid JSON: `));
      writeFileSync(file, '{"nextBlockStart": 1000}\n');
      expect(refusedOn(data.dir)).toEqual({
        status: 2,
        stderr: `kafka-mock-coordinator: ${file} has no nextBlockStart (a decimal string): it is damaged; restore it or remove it to start ids above those found in the logs\n`,
      });
    } finally {
      data.remove();
    }
  });
});

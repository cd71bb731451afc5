import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { dumpLogFile } from '../../src/tools/dump-log.js';
import { formatOffsetsRecord, jacksonString } from '../../src/tools/coordinator-json.js';
import { encodeRecordBatch } from '../../src/records/record-batch.js';
import { crc32c } from '../../src/records/crc32c.js';
import { fixtureSegment, fixtureRecords } from './offsets-fixtures.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kmc-dump-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function dump(file: string): { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  dumpLogFile(file, (l) => out.push(l), (l) => err.push(l));
  return { out, err };
}

describe('dump-log', () => {
  it('prints the file, batch and record lines as kafka-dump-log.sh --offsets-decoder', () => {
    const { segment, records } = fixtureSegment(1793247619231n, 3);
    const file = join(dir, '00000000000000000000.log');
    writeFileSync(file, segment);
    const { out, err } = dump(file);
    expect(err).toEqual([]);
    expect(out[0]).toBe(`Dumping ${file}`);
    expect(out[1]).toBe('Log starting offset: 0');
    expect(out[2]).toMatch(
      /^baseOffset: 0 lastOffset: 2 count: 3 baseSequence: -1 lastSequence: -1 producerId: -1 producerEpoch: -1 partitionLeaderEpoch: 0 isTransactional: false isControl: false deleteHorizonMs: OptionalLong\.empty position: 0 CreateTime: 1793247619231 size: 537 magic: 2 compresscodec: none crc: \d+ isvalid: true$/,
    );
    expect(out[3]).toBe(
      '| offset: 0 CreateTime: 1793247619231 keySize: 20 valueSize: 24 sequence: -1 headerKeys: [] key: {"type":"2","data":{"group":"b1.offsets.group"}} payload: {"version":"3","data":{"protocolType":"","generation":0,"protocol":null,"leader":null,"currentStateTimestamp":1793247616118,"members":[]}}',
    );
    // Every record line carries exactly the key/payload text Kafka prints for it.
    const recordLines = out.filter((l) => l.startsWith('| '));
    expect(recordLines).toHaveLength(records.length);
    recordLines.forEach((line, i) => {
      const r = records[i]!;
      expect(line).toMatch(new RegExp(`^\\| offset: ${i} CreateTime: \\d+ keySize: \\d+ valueSize: -?\\d+ sequence: -1 headerKeys: \\[\\] key: `));
      const expected = ` key: ${r.key}` + (r.payload !== undefined ? ` payload: ${r.payload}` : '');
      expect(line.slice(line.indexOf(' key: '))).toBe(expected);
    });
    expect(out.filter((l) => l.startsWith('baseOffset: ')).every((l) => l.endsWith('isvalid: true'))).toBe(true);
  });

  it('prints offset commits, tombstones and KIP-848 records as in TOOL-OUTPUTS.md', () => {
    const lines = fixtureRecords().map((r) => `key: ${r.key}` + (r.payload ? ` payload: ${r.payload}` : ''));
    expect(lines).toContain(
      'key: {"type":"1","data":{"group":"b1.offsets.group","topic":"b1.offsets.demo","partition":1}} payload: {"version":"4","data":{"offset":12,"leaderEpoch":0,"metadata":"","commitTimestamp":1793247619231,"topicId":"Rfl4WzuKSVOyZ2jXqNldDQ"}}',
    );
    expect(lines).toContain('key: {"type":"1","data":{"group":"simple","topic":"t","partition":4}} payload: <DELETE>');
    expect(lines).toContain(
      'key: {"type":"8","data":{"groupId":"b1.proto.consumer.group","memberId":"rG3L_GErSLKFp3Vdw9MvcQ"}} payload: {"version":"0","data":{"memberEpoch":2,"previousMemberEpoch":0,"state":0,"assignedPartitions":[{"topicId":"Rfl4WzuKSVOyZ2jXqNldDQ","partitions":[0,1,2],"assignmentEpochs":[2,2,2]}],"partitionsPendingRevocation":[{"topicId":"Rfl4WzuKSVOyZ2jXqNldDQ","partitions":[5]}]}}',
    );
    for (const r of fixtureRecords()) {
      expect(formatOffsetsRecord(r.record.key, r.record.value, 0n)).toEqual({ key: r.key, ...(r.payload !== undefined ? { payload: r.payload } : {}) });
    }
  });

  it('reports unknown record types and undecodable values without failing', () => {
    // 9 is a gap in Kafka 4.3's numbering (12 is a share-group record, decoded like the others).
    const key = Buffer.from([0, 9, 0, 0]);
    expect(formatOffsetsRecord(key, Buffer.from([0, 0]), 7n)).toEqual({ key: 'Unknown record type 9 at offset 7, skipping.' });
    const ocKey = fixtureRecords().find((r) => r.key.startsWith('{"type":"1"'))!.record.key!;
    const bad = formatOffsetsRecord(ocKey, Buffer.from([0, 4, 1]), 9n);
    expect(bad.key).toMatch(/^Error at offset 9, skipping\. /);
    expect(bad.payload).toBeUndefined();
  });

  it('escapes strings as Jackson does', () => {
    expect(jacksonString('a"b\\c\n\t\r\b\f\u0001\u001f/é\u2028')).toBe('"a\\"b\\\\c\\n\\t\\r\\b\\f\\u0001\\u001F/é\u2028"');
  });

  it('flags a bad CRC, notes a torn tail, and names the base offset from the file name', () => {
    const { segment } = fixtureSegment(1000n, 1);
    const corrupt = Buffer.from(segment);
    corrupt[70] = corrupt[70]! ^ 0xff; // inside the first batch's records (CRC-covered)
    const torn = Buffer.concat([corrupt, segment.subarray(0, 40)]);
    const file = join(dir, '00000000000000000042.log');
    writeFileSync(file, torn);
    const { out } = dump(file);
    expect(out[1]).toBe('Log starting offset: 42');
    expect(out[2]).toMatch(/ isvalid: false$/);
    expect(out.filter((l) => l.endsWith('isvalid: false'))).toHaveLength(1);
    expect(out[out.length - 1]).toBe('Found 40 invalid bytes at the end of 00000000000000000042.log');
  });

  it('ends at a tail of zeros (written ahead of a coordinator log\'s batches under always) with a note on stderr, the batches printed as without it', () => {
    const { segment } = fixtureSegment(1000n, 2);
    const plain = join(dir, '00000000000000000000.log');
    writeFileSync(plain, segment);
    const expected = dump(plain).out;
    const zeroed = join(dir, 'zeros');
    rmSync(zeroed, { recursive: true, force: true });
    mkdirSync(zeroed);
    const file = join(zeroed, '00000000000000000000.log');
    writeFileSync(file, Buffer.concat([segment, Buffer.alloc(8192 - segment.length)]));
    const { out, err } = dump(file);
    expect(out).toEqual(expected.map((l) => l.replace(plain, file)));
    expect(err).toEqual([`${8192 - segment.length} bytes of zeros follow the batches in 00000000000000000000.log: space written ahead of them (mock.flush.policy=always), cut when the segment rolls or the server stops`]);
  });

  it('prints the two opening lines before failing on a missing file, and says whether a badly named file exists', () => {
    // Kafka 4.3.1's DumpLogSegments --files /nope/00000000000000000000.log prints `Dumping …` and
    // `Log starting offset: 0`, then fails with NoSuchFileException; a name that is not an offset fails before.
    const out: string[] = [];
    const missing = join(dir, 'nope', '00000000000000000007.log');
    expect(() => dumpLogFile(missing, (l) => out.push(l))).toThrow(`NoSuchFileException: ${missing} (no such file)`);
    expect(out).toEqual([`Dumping ${missing}`, 'Log starting offset: 7']);
    const badName = join(dir, 'abc.log');
    writeFileSync(badName, Buffer.alloc(0));
    const lines: string[] = [];
    expect(() => dumpLogFile(badName, (l) => lines.push(l))).toThrow('For input string: "abc" (the segment file name must be its base offset; the file exists)');
    expect(lines).toEqual([`Dumping ${badName}`]);
    expect(() => dumpLogFile(join(dir, 'nope', 'abc.log'), () => {})).toThrow('For input string: "abc" (the segment file name must be its base offset; no such file either)');
  });

  it('prints sequences, producer fields and headers of idempotent batches', () => {
    const rec = fixtureRecords()[4]!.record;
    const batch = encodeRecordBatch({
      baseOffset: 5n, timestamp: 100n, producerId: 7n, producerEpoch: 1, baseSequence: 2147483647, partitionLeaderEpoch: 3,
      records: [rec, { ...rec, headers: [{ key: 'h1', value: null }, { key: 'h2', value: Buffer.from('x') }] }],
    });
    const file = join(dir, '00000000000000000005.log');
    writeFileSync(file, batch);
    const { out } = dump(file);
    expect(out[2]).toMatch(/^baseOffset: 5 lastOffset: 6 count: 2 baseSequence: 2147483647 lastSequence: 0 producerId: 7 producerEpoch: 1 partitionLeaderEpoch: 3 isTransactional: false isControl: false deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 100 /);
    expect(out[3]).toMatch(/^\| offset: 5 CreateTime: 100 keySize: \d+ valueSize: \d+ sequence: 2147483647 headerKeys: \[\] key: /);
    expect(out[4]).toMatch(/^\| offset: 6 CreateTime: 100 keySize: \d+ valueSize: \d+ sequence: 0 headerKeys: \[h1,h2\] key: /);
  });

  it('runs as `kafka-mock-coordinator dump-log <file>...` from the built command line', () => {
    const { segment } = fixtureSegment();
    const a = join(dir, '00000000000000000000.log');
    const b = join(dir, '00000000000000000100.log');
    writeFileSync(a, segment);
    writeFileSync(b, segment.subarray(0, 537));
    const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
    const res = spawnSync(process.execPath, [cli, 'dump-log', a, b], { encoding: 'utf8', timeout: 20000 });
    expect(res.status).toBe(0);
    expect(res.stderr).toBe('');
    const lines = res.stdout.split('\n');
    const expected: string[] = [];
    dumpLogFile(a, (l) => expected.push(l));
    dumpLogFile(b, (l) => expected.push(l));
    expect(lines).toEqual([...expected, '']);
    expect(lines.filter((l) => l.startsWith('Dumping '))).toEqual([`Dumping ${a}`, `Dumping ${b}`]);
    expect(lines).toContain('Log starting offset: 100');
    const missing = spawnSync(process.execPath, [cli, 'dump-log', join(dir, '00000000000000000999.log')], { encoding: 'utf8', timeout: 20000 });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toBe(`NoSuchFileException: ${join(dir, '00000000000000000999.log')} (no such file)\n`);
    expect(missing.stdout).toBe(`Dumping ${join(dir, '00000000000000000999.log')}\nLog starting offset: 999\n`);
  });

  it('stops with status 1 at a batch whose records cannot be read, after the lines Kafka 4.3.1 prints before its exception', () => {
    // Damaged copies of the fixture (first batch: 3 records, 537 bytes), CRC made valid again, as
    // adversary8's dumplog-corrupt.sh: Kafka's DumpLogSegments printed the same stdout and these exceptions.
    const { segment } = fixtureSegment();
    const withCrc = (b: Buffer): Buffer => (b.writeUInt32BE(crc32c(b.subarray(21, 537)), 17), b);
    const damaged = (edit: (b: Buffer) => void): Buffer => {
      const b = Buffer.from(segment);
      edit(b);
      return withCrc(b);
    };
    const good = join(dir, '00000000000000000000.log');
    writeFileSync(good, segment);
    const goodLines: string[] = [];
    dumpLogFile(good, (l) => goodLines.push(l));
    const firstBatchRecords = goodLines.slice(3, 6);
    expect(firstBatchRecords.every((l) => l.startsWith('| offset: '))).toBe(true);
    const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
    const cases: [string, Buffer, number, string][] = [
      ['count 1e9', damaged((b) => b.writeInt32BE(1_000_000_000, 57)), 3, 'InvalidRecordException: Incorrect declared batch size, premature EOF reached'],
      ['count -5', damaged((b) => b.writeInt32BE(-5, 57)), 0, 'InvalidRecordException: Found invalid record count -5 in magic v2 batch'],
      // Kafka's iterator checks for bytes left before it hands out the last record.
      ['count 2', damaged((b) => b.writeInt32BE(2, 57)), 1, 'InvalidRecordException: Incorrect declared batch size, records still remaining in file'],
      ['gzip flag on plain records', damaged((b) => b.writeInt16BE(1, 21)), 0, 'KafkaException: java.util.zip.ZipException: Not in GZIP format'],
    ];
    cases.forEach(([name, bytes, printed, message], i) => {
      const file = join(dir, `0000000000000000001${i}.log`);
      writeFileSync(file, bytes);
      // A file after the damaged one is not dumped: Kafka's tool stops at the exception.
      const res = spawnSync(process.execPath, [cli, 'dump-log', file, good], { encoding: 'utf8', timeout: 20000 });
      expect({ name, status: res.status, stderr: res.stderr }).toEqual({ name, status: 1, stderr: `${message}\n` });
      const lines = res.stdout.split('\n');
      expect(lines.slice(0, 2)).toEqual([`Dumping ${file}`, `Log starting offset: 1${i}`]);
      expect(lines[2]).toMatch(/^baseOffset: 0 lastOffset: 2 count: -?\d+ .* position: 0 CreateTime: 1793247619231 size: 537 magic: 2 compresscodec: (none|gzip) crc: \d+ isvalid: true$/);
      expect(lines.slice(3)).toEqual([...firstBatchRecords.slice(0, printed), '']);
    });
    // Magic 1 (a v2 batch's byte changed): no legacy decoding here; Kafka's tool also stops there (IndexOutOfBoundsException).
    const magic1 = Buffer.from(segment);
    magic1.writeInt8(1, 16);
    const file = join(dir, '00000000000000000015.log');
    writeFileSync(file, magic1);
    const res = spawnSync(process.execPath, [cli, 'dump-log', file], { encoding: 'utf8', timeout: 20000 });
    expect(res.status).toBe(1);
    expect(res.stdout).toBe(`Dumping ${file}\nLog starting offset: 15\noffset: 0 position: 0 size: 537 magic: 1 isvalid: false\n`);
    expect(res.stderr).toBe('batch at position 0 has magic 1; only magic 2 batches are decoded\n');
  });

  it('prints the records of snappy, lz4 and zstd batches as those of the same batch uncompressed', () => {
    const { segment } = fixtureSegment();
    const plain = segment.subarray(0, 537);
    const plainFile = join(dir, '00000000000000000000.log');
    writeFileSync(plainFile, plain);
    const plainLines: string[] = [];
    dumpLogFile(plainFile, (l) => plainLines.push(l));
    const require = createRequire(import.meta.url);
    const compressors: Record<string, [number, (b: Buffer) => Buffer]> = {
      snappy: [2, (b) => (require('snappy') as typeof import('snappy')).compressSync(b)],
      lz4: [3, (b) => (require('lz4-napi') as typeof import('lz4-napi')).compressFrameSync(b)],
    };
    for (const [name, [codec, compress]] of Object.entries(compressors)) {
      const batch = Buffer.concat([plain.subarray(0, 61), compress(plain.subarray(61))]);
      batch.writeInt32BE(batch.length - 12, 8);
      batch.writeInt16BE(batch.readInt16BE(21) | codec, 21);
      batch.writeUInt32BE(crc32c(batch.subarray(21)), 17);
      const file = join(dir, `0000000000000000002${codec}.log`);
      writeFileSync(file, batch);
      const { out, err } = dump(file);
      expect({ name, err }).toEqual({ name, err: [] });
      expect(out[2]).toContain(` compresscodec: ${name} `);
      expect(out.slice(3)).toEqual(plainLines.slice(3));
    }
  });

  it('stops quietly with status 0 when its reader closes the pipe early (`dump-log ... | head -1`)', async () => {
    const { segment } = fixtureSegment();
    const file = join(dir, '00000000000000000000.log');
    writeFileSync(file, segment);
    const cli = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
    // Enough output (the segment 400 times) to still be writing when the reader has gone.
    const child = spawn(process.execPath, [cli, 'dump-log', ...Array<string>(400).fill(file)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const [first] = (await once(child.stdout, 'data')) as [Buffer];
    child.stdout.destroy();
    const [code] = (await once(child, 'close')) as [number | null];
    expect(first.toString().split('\n')[0]).toBe(`Dumping ${file}`);
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});

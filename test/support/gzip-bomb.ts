/**
 * A gzip "bomb" for tests, cheap to build: one valid record whose value is `valueMiB` MiB of zeros,
 * gzipped as concatenated gzip members (one for the record's head, the same 1 MiB-of-zeros member
 * repeated, one for its tail) so the test never holds the inflated bytes. Gzip readers (node:zlib,
 * Java's GZIPInputStream) read concatenated members as one stream. The last member is tiny, so the
 * trailer's inflated-size field says a few bytes.
 */
import { gzipSync } from 'node:zlib';
import { recordBody, varint } from './raw-records.js';

const MIB = 1024 * 1024;

/** The compressed records of the bomb, and how many bytes they inflate to. */
export function gzipBombRecords(valueMiB: number): { compressed: Buffer; inflatedBytes: number } {
  const valueBytes = valueMiB * MIB;
  // A record body with an empty value gives the fields around it: attributes, deltas, null key | value | header count.
  const fields = recordBody({ value: Buffer.alloc(0) });
  const head = Buffer.concat([fields.subarray(0, fields.length - 2), varint(valueBytes)]);
  const tail = varint(0);
  const bodyBytes = head.length + valueBytes + tail.length;
  const zeros = gzipSync(Buffer.alloc(MIB), { level: 9 });
  const members = [gzipSync(Buffer.concat([varint(bodyBytes), head])), ...Array.from({ length: valueMiB }, () => zeros), gzipSync(tail)];
  return { compressed: Buffer.concat(members), inflatedBytes: varint(bodyBytes).length + bodyBytes };
}

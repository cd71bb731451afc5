/**
 * Checks the records of a gzip batch (its compressed bytes) with a RecordHeadStream, in bounded
 * memory and without holding the event loop for long: a batch whose trailer says it inflates to at
 * most GZIP_SYNC_INFLATE_LIMIT bytes (the usual case) is inflated in one synchronous call capped at
 * that size; any other (a trailer that lies, a gzip bomb) is inflated by a zlib stream in chunks of
 * GZIP_STREAM_CHUNK_BYTES, each checked as it comes out and dropped, the inflating done off the
 * event loop. Kafka has no inflated-size limit either: it reads a compressed batch through a stream
 * (`DefaultRecordBatch.compressedIterator`), so a valid batch of any inflated size is accepted.
 */
import type { RecordHeadStream } from './record-head-stream.js';
import { lazyModule } from '../util/lazy-module.js';

/** Node's zlib, loaded at the first gzip batch (util/lazy-module.ts): a start that sees none does without it. */
export const nodeZlib = lazyModule<typeof import('node:zlib')>('node:zlib', 'gzip record batches');

/** Inflated bytes up to which a gzip batch is checked in one synchronous gunzip (bigger ones stream). */
export const GZIP_SYNC_INFLATE_LIMIT = 1024 * 1024;
/** Bytes of each inflated chunk when streaming: the most of a batch's records held at once. */
export const GZIP_STREAM_CHUNK_BYTES = 64 * 1024;

/**
 * The compressed bytes are not gzip, or their inflating fails (corrupt deflate data, a cut stream,
 * a wrong gzip trailer): Kafka's `KafkaException("Failed to decompress record stream")`, answered
 * UNKNOWN_SERVER_ERROR.
 */
export class DecompressionError extends Error {}

/**
 * Feeds the inflated bytes of `compressed` to `records` and finishes it. Returns when done
 * synchronously, else a promise; throws (rejects with) what `records` throws at the first
 * malformation found, or DecompressionError. `onChunk` (tests) sees the size of each streamed chunk.
 */
export function checkGzipRecords(compressed: Buffer, records: RecordHeadStream, onChunk?: (bytes: number) => void): void | Promise<void> {
  // ISIZE, the last 4 bytes: the inflated size modulo 2^32 (of the last member), a hint only.
  const hint = compressed.length >= 4 ? compressed.readUInt32LE(compressed.length - 4) : 0;
  if (hint <= GZIP_SYNC_INFLATE_LIMIT) {
    let inflated: Buffer | null = null;
    try {
      inflated = nodeZlib().gunzipSync(compressed, { maxOutputLength: GZIP_SYNC_INFLATE_LIMIT });
    } catch {
      // Bigger than the hint said, or not inflatable: the stream finds which, and any malformed
      // record before a corruption first, as Kafka's stream would.
    }
    if (inflated !== null) {
      records.push(inflated);
      records.finish();
      return;
    }
  }
  return streamRecords(compressed, records, onChunk);
}

function streamRecords(compressed: Buffer, records: RecordHeadStream, onChunk?: (bytes: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const gunzip = nodeZlib().createGunzip({ chunkSize: GZIP_STREAM_CHUNK_BYTES });
    let settled = false;
    const fail = (err: Error): void => {
      if (settled) return;
      settled = true;
      gunzip.destroy();
      reject(err);
    };
    gunzip.on('data', (chunk: Buffer) => {
      if (settled) return;
      onChunk?.(chunk.length);
      try {
        records.push(chunk);
      } catch (err) {
        fail(err as Error);
      }
    });
    gunzip.on('error', (err) => fail(new DecompressionError(`gzip records do not inflate: ${err.message}`)));
    gunzip.on('end', () => {
      if (settled) return;
      try {
        records.finish();
        settled = true;
        resolve();
      } catch (err) {
        fail(err as Error);
      }
    });
    gunzip.end(compressed);
  });
}

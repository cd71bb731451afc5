import * as fs from 'node:fs';
import * as path from 'node:path';
import type { DescribeLogDirsRequest } from '../protocol/messages/DescribeLogDirsRequest.js';
import { defaultDescribeLogDirsResponse, type DescribeLogDirsResponse, type DescribeLogDirsTopic } from '../protocol/messages/DescribeLogDirsResponse.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ApiDefinition } from './types.js';
import { ANY_BROKER } from './shapes/routing.js';

/**
 * DescribeLogDirs (key 35, v1-5), as Kafka's `ReplicaManager.describeLogDirs` for a broker with one
 * log directory: the data directory (absolute; `(in memory)` with --in-memory), every partition asked
 * for (null: all, `__consumer_offsets` included) with its size in bytes (segments written or queued),
 * offset lag 0 (no future replica) and `isFutureKey` false; v4+ the file system's total and usable
 * bytes (statfs; -1 in memory), v5 `isCordoned` false.
 */
export const api: ApiDefinition<DescribeLogDirsRequest, DescribeLogDirsResponse> = {
  apiKey: 35,
  name: 'DescribeLogDirs',
  minVersion: 1,
  maxVersion: 5,
  // DescribeLogDirsRequest.getErrorResponse: the top-level error, no log directory.
  errorResponse: (_req, _version, errorCode) => ({ ...defaultDescribeLogDirsResponse(), errorCode }),
  names: (req) => ({ topics: (req.topics ?? []).map((t) => ({ name: t.topic, partitions: t.partitions })) }),
  largeAnswers: true,
  routing: ANY_BROKER,
  handle(req, ctx) {
    const { broker } = ctx;
    // A topic named twice: the union of its partitions (Kafka collects the request into one set).
    let wanted: Map<string, Set<number>> | null = null;
    if (req.topics !== null) {
      wanted = new Map();
      for (const t of req.topics) {
        const set = wanted.get(t.topic) ?? new Set<number>();
        for (const p of t.partitions) set.add(p);
        wanted.set(t.topic, set);
      }
    }
    const topics: DescribeLogDirsTopic[] = [];
    for (const topic of broker.topics.list()) {
      const only = wanted?.get(topic.name);
      if (wanted && !only) continue;
      const partitions = topic.partitions
        .filter((p) => !only || only.has(p.index))
        .map((p) => ({ partitionIndex: p.index, partitionSize: BigInt(p.log.sizeInBytes), offsetLag: 0n, isFutureKey: false }));
      if (partitions.length > 0) topics.push({ name: topic.name, partitions });
    }
    const dir = broker.dataDir;
    let totalBytes = -1n;
    let usableBytes = -1n;
    if (dir !== null) {
      const stats = fs.statfsSync(dir, { bigint: true });
      totalBytes = stats.blocks * stats.bsize;
      usableBytes = stats.bavail * stats.bsize;
    }
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      results: [{ errorCode: ErrorCode.NONE, logDir: dir === null ? '(in memory)' : path.resolve(dir), topics, totalBytes, usableBytes, isCordoned: false }],
    };
  },
};

/**
 * What the transaction APIs check (Kafka 4.3's `KafkaApis` handlers): WRITE on the transactional
 * id for the APIs a transactional producer sends (TRANSACTIONAL_ID_AUTHORIZATION_FAILED on the
 * whole request), plus READ on the group (AddOffsetsToTxn, TxnOffsetCommit) and WRITE/READ on the
 * topics (AddPartitionsToTxn, TxnOffsetCommit: TOPIC_AUTHORIZATION_FAILED, the rest
 * OPERATION_NOT_ATTEMPTED); AddPartitionsToTxn v4+ (from brokers) CLUSTER_ACTION; DescribeTransactions
 * DESCRIBE per id; ListTransactions lists only the ids the principal may DESCRIBE.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { AclOperation as Op, ResourceType } from '../acl/acl-types.js';
import { clusterOperation, groupOperation, mapResult, refuse, type ApiCheck, type Obj } from './checks.js';

const { TOPIC, TRANSACTIONAL_ID } = ResourceType;

/** WRITE on the request's transactional id (`idOf`), then `then_`. */
function transactionalIdWrite(idOf: (req: Obj) => string, then_: ApiCheck = (b, _c, _a, next) => next(b)): ApiCheck {
  return (req, ctx, auth, next, api) =>
    auth.allowed(Op.WRITE, TRANSACTIONAL_ID, idOf(req)) ? then_(req, ctx, auth, next, api) : refuse(api, ctx, req, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
}

/** Topics of a request (`topics` list, `name`/`partitions` as each names them) some of which `allowed` refuses: per partition TOPIC_AUTHORIZATION_FAILED, the rest OPERATION_NOT_ATTEMPTED. */
function refuseTopics(topics: Obj[], allowed: (topic: string) => boolean, partitionsOf: (t: Obj) => number[], entry: (p: number, code: number) => Obj): Obj[] | null {
  if (topics.every((t) => allowed(t['name']))) return null;
  return topics.map((t) => ({ name: t['name'], partitions: partitionsOf(t).map((p) => entry(p, allowed(t['name']) ? ErrorCode.OPERATION_NOT_ATTEMPTED : ErrorCode.TOPIC_AUTHORIZATION_FAILED)) }));
}

const addPartitionsToTxn: ApiCheck = (req, ctx, auth, next, api) => {
  if (ctx.apiVersion >= 4) return clusterOperation(Op.CLUSTER_ACTION)(req, ctx, auth, next, api);
  return transactionalIdWrite((r) => r['v3AndBelowTransactionalId'], (r, c, a, n) => {
    const refused = refuseTopics(r['v3AndBelowTopics'], (topic) => a.allowed(Op.WRITE, TOPIC, topic), (t) => t['partitions'], (partitionIndex, partitionErrorCode) => ({ partitionIndex, partitionErrorCode }));
    if (!refused) return n(r);
    return { throttleTimeMs: 0, errorCode: 0, resultsByTransaction: [], resultsByTopicV3AndBelow: refused.map((t) => ({ name: t['name'], resultsByPartition: t['partitions'] })) };
  })(req, ctx, auth, next, api);
};

const txnOffsetCommit: ApiCheck = transactionalIdWrite(
  (r) => r['transactionalId'],
  groupOperation(Op.READ, (req, _ctx, auth, next) => {
    const refused = refuseTopics(req['topics'], (topic) => auth.allowed(Op.READ, TOPIC, topic), (t) => t['partitions'].map((p: Obj) => p['partitionIndex']), (partitionIndex, errorCode) => ({ partitionIndex, errorCode }));
    return refused ? { throttleTimeMs: 0, topics: refused } : next(req);
  }),
);

const describeTransactions: ApiCheck = (req, _ctx, auth, next) => {
  const ids: string[] = req['transactionalIds'];
  const allowed = ids.filter((id) => auth.allowed(Op.DESCRIBE, TRANSACTIONAL_ID, id));
  if (allowed.length === ids.length) return next(req);
  return mapResult(next({ ...req, transactionalIds: allowed }), (res: Obj) => {
    const served = new Map<string, Obj>(res['transactionStates'].map((s: Obj) => [s['transactionalId'], s]));
    const refused = (transactionalId: string): Obj => ({ errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, transactionalId, transactionState: '', transactionTimeoutMs: 0, transactionStartTimeMs: -1n, producerId: -1n, producerEpoch: -1, topics: [] });
    return { ...res, transactionStates: ids.map((id) => served.get(id) ?? refused(id)) };
  });
};

const listTransactions: ApiCheck = (req, _ctx, auth, next) =>
  mapResult(next(req), (res: Obj) => ({ ...res, transactionStates: res['transactionStates'].filter((s: Obj) => auth.allowed(Op.DESCRIBE, TRANSACTIONAL_ID, s['transactionalId'])) }));

/** The transaction APIs' entries of `API_CHECKS`. */
export const TXN_API_CHECKS: Readonly<Record<number, ApiCheck>> = {
  24: addPartitionsToTxn,
  25: transactionalIdWrite((r) => r['transactionalId'], groupOperation(Op.READ)), // AddOffsetsToTxn
  26: transactionalIdWrite((r) => r['transactionalId']), // EndTxn
  28: txnOffsetCommit,
  65: describeTransactions,
  66: listTransactions,
};

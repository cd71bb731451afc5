import { ErrorCode } from '../protocol/errors.js';
import type { DescribeClusterRequest } from '../protocol/messages/DescribeClusterRequest.js';
import { defaultDescribeClusterResponse, type DescribeClusterResponse } from '../protocol/messages/DescribeClusterResponse.js';
import type { ApiDefinition } from './types.js';
import { topLevelError } from './shapes/errors.js';
import { namesNothing } from './shapes/names.js';
import { ANY_BROKER } from './shapes/routing.js';

/** KIP-919 endpoint types (`EndpointType`): what a broker listener answers is BROKER. */
export const ENDPOINT_TYPE_BROKER = 1;
export const ENDPOINT_TYPE_CONTROLLER = 2;

/** Kafka's "authorized operations not requested" sentinel (Integer.MIN_VALUE). */
const OPERATIONS_OMITTED = -2147483648;
/**
 * With no authorizer every operation supported on CLUSTER is allowed (`AclEntry.supportedOperations`):
 * CREATE(5), ALTER(7), DESCRIBE(8), CLUSTER_ACTION(9), DESCRIBE_CONFIGS(10), ALTER_CONFIGS(11),
 * IDEMPOTENT_WRITE(12), as `AuthHelper.authorizedOperations` packs them.
 */
export const ALL_CLUSTER_OPERATIONS = [5, 7, 8, 9, 10, 11, 12].reduce((bits, op) => bits | (1 << op), 0);

/**
 * DescribeCluster (key 60, v0-2), as Kafka 4.3's `KafkaApis.handleDescribeCluster` with
 * `AuthHelper.computeDescribeClusterResponse` on a single-node KRaft cluster:
 * - endpoint type (v1+; v0 implies brokers): unknown -> UNSUPPORTED_ENDPOINT_TYPE, controllers ->
 *   MISMATCHED_ENDPOINT_TYPE (both INVALID_REQUEST at v0), each with Kafka's message;
 * - otherwise this node as the only (unfenced) broker, the controller id Kafka reports in KRaft
 *   mode (an alive broker: this node), the cluster id, endpoint type BROKER, and the cluster's
 *   authorized operations when asked (all of them: no authorizer).
 */
export const api: ApiDefinition<DescribeClusterRequest, DescribeClusterResponse> = {
  apiKey: 60,
  name: 'DescribeCluster',
  minVersion: 0,
  maxVersion: 2,
  errorResponse: topLevelError(defaultDescribeClusterResponse),
  names: namesNothing,
  routing: ANY_BROKER,
  handle(req, ctx) {
    const { broker } = ctx;
    const version = ctx.apiVersion;
    const endpointType = version >= 1 ? req.endpointType : ENDPOINT_TYPE_BROKER;
    const error = (errorCode: number, errorMessage: string): DescribeClusterResponse => ({
      throttleTimeMs: 0,
      errorCode: version === 0 ? ErrorCode.INVALID_REQUEST : errorCode,
      errorMessage,
      endpointType: ENDPOINT_TYPE_BROKER,
      clusterId: '',
      controllerId: -1,
      brokers: [],
      clusterAuthorizedOperations: OPERATIONS_OMITTED,
    });
    if (endpointType !== ENDPOINT_TYPE_BROKER && endpointType !== ENDPOINT_TYPE_CONTROLLER) {
      return error(ErrorCode.UNSUPPORTED_ENDPOINT_TYPE, `Unsupported endpoint type ${endpointType}`);
    }
    if (endpointType === ENDPOINT_TYPE_CONTROLLER) {
      return error(ErrorCode.MISMATCHED_ENDPOINT_TYPE, 'The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER');
    }
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      endpointType: ENDPOINT_TYPE_BROKER,
      clusterId: broker.clusterId,
      // Every live broker of the simulated cluster (`--brokers N`); the lowest one as controller.
      controllerId: broker.cluster.controllerId(),
      brokers: broker.cluster.liveBrokers(ctx.listener).map((b) => ({ brokerId: b.id, host: b.host, port: b.port, rack: null, isFenced: false })),
      clusterAuthorizedOperations: req.includeClusterAuthorizedOperations ? ALL_CLUSTER_OPERATIONS : OPERATIONS_OMITTED,
    };
  },
};

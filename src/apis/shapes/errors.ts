/** Error responses shared by many API definitions (`ApiDefinition.errorResponse`). */

/**
 * Kafka's `getErrorResponse` for a response whose only error is its top-level `error_code`
 * (Heartbeat, SyncGroup, LeaveGroup, ListGroups, ...): every other field at its default.
 */
export function topLevelError<Res extends { errorCode: number }>(emptyResponse: () => Res): (req: unknown, version: number, errorCode: number) => Res {
  return (_req, _version, errorCode) => ({ ...emptyResponse(), errorCode });
}

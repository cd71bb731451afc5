export { FaultRegistry, FaultRuleGone, FaultWaitTimeout, KNOWN_APIS } from './registry.js';
export type { FaultHandle, FaultRuleInfo, WaitFiredOptions, ConnectionIO } from './registry.js';
export { FaultRuleError, normalizeRule, parseRulesDocument, resolveApi, resolveError, knownErrorName } from './types.js';
export type { FaultRuleSpec, FaultMatch, FaultAction, FaultActionType, ErrorRef, NormalizedRule, NormalizedMatch, NormalizedAction } from './types.js';
export type { RequestLogEntry, RequestLogFilter } from './request-log.js';
export { faultRuleLimits, type FaultRuleLimits } from './reachable.js';

/** `GroupMetadataManager.UpdateRegularExpressionStatus`: what a heartbeat's regex change did. */
export const RegexUpdateStatus = {
  NO_CHANGE: 'NO_CHANGE',
  REGEX_UPDATED: 'REGEX_UPDATED',
  REGEX_UPDATED_AND_RESOLVED: 'REGEX_UPDATED_AND_RESOLVED',
} as const;
export type RegexUpdateStatus = (typeof RegexUpdateStatus)[keyof typeof RegexUpdateStatus];

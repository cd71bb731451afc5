import type { Logger } from 'pino';
import type { ServerClock } from './manual-time.js';

/**
 * A server's logger: under a manual (or custom) clock each line also carries `serverTime`, the
 * server clock's time (ISO 8601), beside pino's wall-clock `time`, so that a timeout's or an
 * expiry's line can be read against the clock that fired it. The system clock's lines are as pino
 * writes them.
 */
export function withServerTime(log: Logger, clock: ServerClock): Logger {
  if (clock.mode === 'system') return log;
  return log.child({}, { formatters: { log: (fields: object) => ({ ...fields, serverTime: new Date(clock.now()).toISOString() }) } });
}

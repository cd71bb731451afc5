/**
 * Kafka's clean-shutdown marker, `.kafka_cleanshutdown` in the log directory (LogManager writes it
 * once every log closed, LogLoader skips recovery when it finds it and the start removes it). Here
 * it tells recovery that no write can have been torn: a bad batch at the end of a partition's last
 * segment is then damage, which stops the start naming the file, not a torn write to cut
 * (recovery.ts). Kafka reads such a log unchecked; we check every batch either way.
 */
import * as fs from 'node:fs';
import { join } from 'node:path';

export const CLEAN_SHUTDOWN_FILE = '.kafka_cleanshutdown';

/** Whether the server that last used each configuration's data directory stopped cleanly, keyed by its config object (as `syncGateFor`). */
const stoppedCleanly = new WeakMap<object, boolean>();

/** Records, for the logs a server opens with `config`, whether its data directory holds the marker. */
export function noteCleanShutdown(config: object, dataDir: string): boolean {
  const clean = fs.existsSync(join(dataDir, CLEAN_SHUTDOWN_FILE));
  stoppedCleanly.set(config, clean);
  return clean;
}

/** Whether the logs opened with `config` were closed cleanly last time (false when unknown: tools, tests). */
export function stoppedCleanlyBefore(config: object): boolean {
  return stoppedCleanly.get(config) ?? false;
}

/** Fsyncs the directory itself, so a file created or removed in it survives a machine crash. */
function syncDirectory(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Removes the marker, if any, once the logs are open: a crash from here on is an unclean shutdown. */
export function removeCleanShutdown(dataDir: string): void {
  const file = join(dataDir, CLEAN_SHUTDOWN_FILE);
  if (!fs.existsSync(file)) return;
  fs.rmSync(file, { force: true });
  syncDirectory(dataDir);
}

/** Writes the marker (Kafka's content, `CleanShutdownFileHandler`; no broker epoch here) once every log closed, durably. */
export function writeCleanShutdown(dataDir: string): void {
  const file = join(dataDir, CLEAN_SHUTDOWN_FILE);
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, '{"version":0,"brokerEpoch":-1}');
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  syncDirectory(dataDir);
}

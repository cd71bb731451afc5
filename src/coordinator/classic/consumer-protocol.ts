import { Reader, Writer } from '../../protocol/primitives.js';
import * as Subscription from '../../records/schemas/ConsumerProtocolSubscription.js';
import * as Assignment from '../../records/schemas/ConsumerProtocolAssignment.js';

/**
 * Readers for the ConsumerProtocol payloads that members of protocol type "consumer" put in
 * JoinGroup metadata and SyncGroup assignments (int16 version + struct). Every other protocol
 * type's bytes stay opaque; these are only used to answer questions about a group
 * (subscribed topics, descriptions), never to change what is relayed.
 */

/**
 * The topics of a subscription, read with the v0 layout that prefixes every version (as Kafka's
 * `ClassicGroup.computeSubscribedTopics` does, so a newer client version still parses);
 * null when the bytes are not a ConsumerProtocol subscription.
 */
export function subscribedTopicsOf(metadata: Buffer): string[] | null {
  try {
    const r = new Reader(metadata);
    r.int16();
    return Subscription.decode(r, 0).topics;
  } catch {
    return null;
  }
}

/** A full subscription at its own version (capped at the newest we know); null when unreadable. */
export function decodeSubscription(metadata: Buffer): Subscription.ConsumerProtocolSubscription | null {
  return orNull(() => readSubscription(metadata));
}

/**
 * As `decodeSubscription`, throwing instead of answering null: MalformedFrameError (its subclass
 * LengthPastEndError for a count or length past the end) or, for a negative version, a plain Error.
 */
export function readSubscription(metadata: Buffer): Subscription.ConsumerProtocolSubscription {
  const r = new Reader(metadata);
  const version = r.int16();
  if (version < 0) throw new Error(`unsupported subscription version ${version}`);
  return Subscription.decode(r, Math.min(version, Subscription.MAX_VERSION));
}

/** An assignment at its own version (capped at the newest we know); null when empty or unreadable. */
export function decodeAssignment(assignment: Buffer): Assignment.ConsumerProtocolAssignment | null {
  if (assignment.length === 0) return null;
  return orNull(() => readAssignment(assignment));
}

/** As `decodeAssignment` for a non-empty `assignment`, throwing as `readSubscription` does. */
export function readAssignment(assignment: Buffer): Assignment.ConsumerProtocolAssignment {
  const r = new Reader(assignment);
  const version = r.int16();
  if (version < 0) throw new Error(`unsupported assignment version ${version}`);
  return Assignment.decode(r, Math.min(version, Assignment.MAX_VERSION));
}

function orNull<T>(read: () => T): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}

export function encodeAssignment(assignedPartitions: Assignment.TopicPartition[], version: number): Buffer {
  const w = new Writer();
  w.int16(version);
  Assignment.encode(w, version, { assignedPartitions, userData: null });
  return w.finish();
}

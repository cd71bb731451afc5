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
  try {
    const r = new Reader(metadata);
    const version = r.int16();
    if (version < 0) return null;
    return Subscription.decode(r, Math.min(version, Subscription.MAX_VERSION));
  } catch {
    return null;
  }
}

/** An assignment at its own version (capped at the newest we know); null when empty or unreadable. */
export function decodeAssignment(assignment: Buffer): Assignment.ConsumerProtocolAssignment | null {
  if (assignment.length === 0) return null;
  try {
    const r = new Reader(assignment);
    const version = r.int16();
    if (version < 0) return null;
    return Assignment.decode(r, Math.min(version, Assignment.MAX_VERSION));
  } catch {
    return null;
  }
}

/**
 * `ConsumerProtocol.serializeAssignment` without user data: the int16 version, then the
 * assignment at that version, which the caller has checked (0 to `Assignment.MAX_VERSION`).
 */
export function encodeAssignment(assignedPartitions: Assignment.TopicPartition[], version: number): Buffer {
  const w = new Writer();
  w.int16(version);
  Assignment.encode(w, version, { assignedPartitions, userData: null });
  return w.finish();
}

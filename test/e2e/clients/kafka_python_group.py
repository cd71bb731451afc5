#!/usr/bin/env python3
"""kafka-python end-to-end client for the kafka-mock-coordinator tests (test/e2e/kafka-python.test.ts).

Two modes, each printing one JSON object on stdout (the last line); kafka-python's log goes to stderr.

  produce: COUNT messages to TOPIC, message i to partition i % PARTITIONS, keyed "<KEY_PREFIX>-i",
           value "value-i"; waits for every acknowledgement (acks=all).
  consume: joins consumer group GROUP (classic protocol: kafka-python has no KIP-848 consumer),
           polls until it has COUNT records (then LINGER seconds more, to catch extra deliveries),
           commits synchronously, reads the committed offsets back with committed(), and closes
           (LeaveGroup). Auto-commit is off, so close() commits nothing.

    python kafka_python_group.py produce --bootstrap localhost:9092 --topic t --count 20
    python kafka_python_group.py consume --bootstrap localhost:9092 --topic t --group g --count 20
"""
import argparse
import faulthandler
import json
import logging
import sys
import time


def emit(result):
    print(json.dumps(result), flush=True)


def record_json(msg):
    return {
        "partition": msg.partition,
        "offset": msg.offset,
        "key": msg.key.decode() if msg.key is not None else None,
        "value": msg.value.decode() if msg.value is not None else None,
    }


def wait_for_stable_group(consumer, deadline):
    """Blocks until the consumer is a stable member of its group (joined and synced, no rejoin
    pending), one wait per join; raises TimeoutError at `deadline` (a backstop for a hang).

    Why not poll(timeout_ms=...) in a loop: kafka-python 3.0.12 runs JoinGroup/SyncGroup as a task
    on its IO thread, and a poll() that returns before the task ends leaves it running; the next
    poll() that finds it finished (BaseCoordinator.join_group_async: `_join_task.is_done`) throws
    its result away and sends a new JoinGroup. On a loaded machine a join can outlast a short poll
    and end between two polls again and again: the server completes generation after generation,
    the member never becomes stable, and every commit meanwhile fails locally with
    RebalanceInProgressError before anything is sent (session 12: 30 s of them). The coordinator's own poll() with the remaining time awaits the join
    it started to its end. `_coordinator` is internal, but the adapter pins kafka-python 3.0.12.
    """
    coordinator = consumer._coordinator  # pylint: disable=protected-access
    while coordinator.generation_if_stable() is None or coordinator.need_rejoin():
        remaining_ms = (deadline - time.monotonic()) * 1000
        if remaining_ms <= 0:
            raise TimeoutError("group not stable before the deadline")
        coordinator.poll(timeout_ms=remaining_ms)


def produce(args, result, common):
    from kafka import KafkaProducer

    result["stage"] = "produce"
    producer = KafkaProducer(acks="all", linger_ms=5, **common)
    try:
        futures = []
        for i in range(args.count):
            futures.append(producer.send(
                args.topic,
                key=f"{args.key_prefix}-{i}".encode(),
                value=f"value-{i}".encode(),
                partition=i % args.partitions,
            ))
        producer.flush(timeout=args.timeout)
        records = []
        for i, f in enumerate(futures):
            md = f.get(timeout=args.timeout)
            records.append({"partition": md.partition, "offset": md.offset, "key": f"{args.key_prefix}-{i}", "value": f"value-{i}"})
    finally:
        producer.close(timeout=5)
    counts = {}
    for r in records:
        counts[str(r["partition"])] = counts.get(str(r["partition"]), 0) + 1
    result["produced"] = dict(sorted(counts.items()))
    result["records"] = sorted(records, key=lambda r: (r["partition"], r["offset"]))


def consume(args, result, common):
    from kafka import KafkaConsumer, TopicPartition

    result["stage"] = "consume"
    consumer = KafkaConsumer(
        group_id=args.group,
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        # The client defaults (45 s / 3 s): a shorter session lets a loaded machine starve the
        # heartbeat thread past it, and the rebalance that follows fails the commit.
        session_timeout_ms=45000,
        heartbeat_interval_ms=3000,
        fetch_max_wait_ms=200,
        **common,
    )
    closed = False
    try:
        # Learn the topic's partitions before joining: kafka-python 3.0.12 subscribed at construction
        # can join (and, as leader, assign nothing) before its first metadata answer, rejoin when that
        # answer arrives, and then stall for good with no request on the wire (seen on a loaded
        # machine; the server had answered every request). Metadata first takes that race away.
        if not consumer.partitions_for_topic(args.topic):
            raise RuntimeError(f"consume: no partitions for topic {args.topic}")
        consumer.subscribe([args.topic])
        polled = []
        deadline = time.monotonic() + args.timeout
        linger_until = None
        while True:
            if len(polled) >= args.count:
                if linger_until is None:
                    linger_until = time.monotonic() + args.linger
                if time.monotonic() >= linger_until:
                    break
            if time.monotonic() >= deadline:
                result["records"] = sorted(polled, key=lambda r: (r["partition"], r["offset"]))
                raise RuntimeError(f"consume: got {len(polled)} of {args.count} records in {args.timeout}s")
            # A join (the first, or a rejoin the previous poll found needed) is awaited to its end
            # here, not across short polls (see wait_for_stable_group).
            try:
                wait_for_stable_group(consumer, deadline)
            except TimeoutError:
                continue
            batches = consumer.poll(timeout_ms=250)
            for _tp, msgs in batches.items():
                polled.extend(record_json(m) for m in msgs)
        result["records"] = sorted(polled, key=lambda r: (r["partition"], r["offset"]))
        result["assigned"] = sorted(tp.partition for tp in consumer.assignment())

        result["stage"] = "commit"
        # Synchronous: the consumed positions of every assigned partition. kafka-python may rejoin
        # on its own (its leader re-checks topic metadata) right before the commit, which the
        # coordinator then answers REBALANCE_IN_PROGRESS; as the client's own error text says, an
        # application polls to finish the rebalance and commits again.
        # The retry commits the positions reached before the rebalance explicitly (after it the
        # consumer's positions restart from the committed offsets, and what that poll returns is
        # not counted).
        from kafka.structs import OffsetAndMetadata
        reached = {}
        for r in polled:
            reached[r["partition"]] = max(reached.get(r["partition"], 0), r["offset"] + 1)
        # Retried once the rebalance has completed, however long a loaded machine makes it (waiting
        # in one-second polls never saw it complete under load: see wait_for_stable_group);
        # args.timeout is the backstop for a hang.
        commit_deadline = time.monotonic() + args.timeout
        attempt = 0
        while True:
            try:
                if attempt == 0:
                    consumer.commit()
                else:
                    consumer.commit({TopicPartition(args.topic, p): OffsetAndMetadata(o, "", -1) for p, o in reached.items()})
                break
            except Exception as err:  # kafka.errors.RebalanceInProgressError / CommitFailedError
                attempt += 1
                if time.monotonic() > commit_deadline or type(err).__name__ not in ("RebalanceInProgressError", "CommitFailedError"):
                    raise
                result.setdefault("commitRetries", []).append(type(err).__name__)
                try:
                    wait_for_stable_group(consumer, commit_deadline)
                except TimeoutError:
                    raise err from None

        result["stage"] = "committed"
        committed = []
        for p in sorted(consumer.partitions_for_topic(args.topic) or []):
            off = consumer.committed(TopicPartition(args.topic, p))
            committed.append({"partition": p, "offset": -1 if off is None else off, "error": None})
        result["committed"] = committed

        result["stage"] = "close"
        consumer.close(autocommit=False)
        closed = True
    finally:
        if not closed:
            consumer.close(autocommit=False)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["produce", "consume"])
    parser.add_argument("--bootstrap", required=True, help="bootstrap_servers, HOST:PORT")
    parser.add_argument("--topic", required=True)
    parser.add_argument("--group", help="consumer group id (consume)")
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--partitions", type=int, default=3, help="produce: message i goes to partition i %% PARTITIONS")
    parser.add_argument("--key-prefix", default="key")
    parser.add_argument("--client-id", default="kmc-kafka-python")
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--linger", type=float, default=1.5)
    parser.add_argument("--debug", action="store_true", help="kafka-python DEBUG logging to stderr")
    args = parser.parse_args()
    # The stages' own deadlines (consume, then commit: args.timeout each) are backstops for a hang;
    # a hang past both dumps every thread's stack on stderr and exits, so the test says where it
    # was stuck instead of killing a silent process (CI, session 18: no output before the kill).
    faulthandler.dump_traceback_later(2 * args.timeout + 10, exit=True)

    logging.basicConfig(stream=sys.stderr, level=logging.DEBUG if args.debug else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")

    result = {"ok": False, "stage": "import", "mode": args.mode}
    try:
        import kafka
    except ImportError as e:
        result["error"] = f"cannot import kafka ({e}); install it: pip install kafka-python"
        emit(result)
        return 2
    result["kafkaPythonVersion"] = kafka.__version__
    common = {"bootstrap_servers": args.bootstrap, "client_id": args.client_id, "request_timeout_ms": 20000}
    try:
        if args.mode == "produce":
            produce(args, result, common)
        else:
            if not args.group:
                raise ValueError("consume needs --group")
            consume(args, result, common)
    except Exception as e:  # noqa: BLE001 - reported in the JSON result
        result["error"] = f"{type(e).__name__}: {e}"
        emit(result)
        return 1
    result["stage"] = "done"
    result["ok"] = True
    emit(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""librdkafka (Python confluent-kafka) end-to-end client for the kafka-mock-coordinator tests
(test/e2e/librdkafka-resume.test.ts, scenario in test/e2e/clients/group-resume.ts).

Same command interface as kafka_python_group.py; each mode prints one JSON object on stdout (the
last line); librdkafka's own log goes to stderr.

  produce: COUNT messages to TOPIC, message i to partition i % PARTITIONS, keyed "<KEY_PREFIX>-i",
           value "value-i"; waits for every delivery report (acks=all).
  consume: joins consumer group GROUP with group.protocol PROTOCOL (classic: JoinGroup/SyncGroup;
           consumer: KIP-848 ConsumerGroupHeartbeat), polls until it has COUNT records (then LINGER
           seconds more, to catch extra deliveries), commits synchronously (commit(asynchronous=False)
           of the stored positions), reads the committed offsets back with committed(), and closes
           (leaves the group). enable.auto.commit is off, so close() commits nothing.

    python librdkafka_resume.py produce --bootstrap localhost:9092 --topic t --count 20
    python librdkafka_resume.py consume --bootstrap localhost:9092 --topic t --group g --count 20 --protocol consumer
"""
import argparse
import json
import sys
import time


def emit(result):
    print(json.dumps(result), flush=True)


def text(b):
    return b.decode() if b is not None else None


def produce(args, result, common):
    from confluent_kafka import Producer

    result["stage"] = "produce"
    producer = Producer({**common, "acks": "all", "linger.ms": 5})
    delivered = []
    failed = []

    def on_delivery(err, msg):
        if err is not None:
            failed.append(f"{text(msg.key())}: {err}")
        else:
            delivered.append({"partition": msg.partition(), "offset": msg.offset(), "key": text(msg.key()), "value": text(msg.value())})

    for i in range(args.count):
        producer.produce(
            args.topic,
            key=f"{args.key_prefix}-{i}".encode(),
            value=f"value-{i}".encode(),
            partition=i % args.partitions,
            on_delivery=on_delivery,
        )
        producer.poll(0)
    left = producer.flush(args.timeout)
    if failed:
        raise RuntimeError(f"delivery failed: {failed[:5]}")
    if left or len(delivered) != args.count:
        raise RuntimeError(f"{left} messages still queued, {len(delivered)} of {args.count} delivered after {args.timeout}s")
    counts = {}
    for r in delivered:
        counts[str(r["partition"])] = counts.get(str(r["partition"]), 0) + 1
    result["produced"] = dict(sorted(counts.items()))
    result["records"] = sorted(delivered, key=lambda r: (r["partition"], r["offset"]))


def consume(args, result, common):
    from confluent_kafka import Consumer, KafkaException, TopicPartition

    result["stage"] = "consume"
    conf = {
        **common,
        "group.id": args.group,
        "group.protocol": args.protocol,
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
        "fetch.wait.max.ms": 200,
    }
    if args.protocol == "classic":
        # KIP-848 (group.protocol=consumer) forbids these client-side settings: the broker owns them.
        conf.update({"session.timeout.ms": 10000, "heartbeat.interval.ms": 1000, "partition.assignment.strategy": "range"})
    consumer = Consumer(conf)
    assigned = set()

    def on_assign(_c, partitions):
        assigned.update(tp.partition for tp in partitions)

    def on_revoke(_c, partitions):
        assigned.difference_update(tp.partition for tp in partitions)

    closed = False
    try:
        consumer.subscribe([args.topic], on_assign=on_assign, on_revoke=on_revoke)
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
            msg = consumer.poll(0.25)
            if msg is None:
                continue
            if msg.error() is not None:
                raise KafkaException(msg.error())
            polled.append({"partition": msg.partition(), "offset": msg.offset(), "key": text(msg.key()), "value": text(msg.value())})
        result["records"] = sorted(polled, key=lambda r: (r["partition"], r["offset"]))
        result["assigned"] = sorted(assigned)

        result["stage"] = "commit"
        # Synchronous: the stored positions (offset + 1 of each message handed out) of every assigned partition.
        commit = consumer.commit(asynchronous=False) or []
        result["commitResult"] = sorted(
            ({"partition": tp.partition, "offset": tp.offset, "error": str(tp.error) if tp.error else None} for tp in commit),
            key=lambda c: c["partition"],
        )
        errors = [c for c in result["commitResult"] if c["error"]]
        if errors:
            raise RuntimeError(f"commit errors: {errors}")

        result["stage"] = "committed"
        tps = [TopicPartition(args.topic, p) for p in range(args.partitions)]
        committed = []
        for tp in sorted(consumer.committed(tps, timeout=args.timeout), key=lambda t: t.partition):
            # OFFSET_INVALID (-1001) means no committed offset: report it as -1 like the other clients.
            committed.append({"partition": tp.partition, "offset": tp.offset if tp.offset >= 0 else -1, "error": str(tp.error) if tp.error else None})
        result["committed"] = committed

        result["stage"] = "close"
        consumer.close()
        closed = True
    finally:
        if not closed:
            consumer.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["produce", "consume"])
    parser.add_argument("--bootstrap", required=True, help="bootstrap.servers, HOST:PORT")
    parser.add_argument("--topic", required=True)
    parser.add_argument("--group", help="consumer group id (consume)")
    parser.add_argument("--protocol", choices=["classic", "consumer"], default="classic", help="group.protocol (consume)")
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--partitions", type=int, default=3, help="produce: message i goes to partition i %% PARTITIONS")
    parser.add_argument("--key-prefix", default="key")
    parser.add_argument("--client-id", default="kmc-librdkafka")
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--linger", type=float, default=1.5)
    parser.add_argument("--debug", default="", help="librdkafka debug contexts, e.g. cgrp,consumer,protocol")
    args = parser.parse_args()

    result = {"ok": False, "stage": "import", "mode": args.mode}
    try:
        import confluent_kafka
    except ImportError as e:
        result["error"] = f"cannot import confluent_kafka ({e}); install it: pip install confluent-kafka"
        emit(result)
        return 2
    result["confluentKafkaVersion"] = confluent_kafka.__version__
    result["librdkafkaVersion"] = confluent_kafka.libversion()[0]
    common = {"bootstrap.servers": args.bootstrap, "client.id": args.client_id, "socket.timeout.ms": 20000}
    if args.debug:
        common["debug"] = args.debug
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

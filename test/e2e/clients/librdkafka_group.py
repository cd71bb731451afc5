#!/usr/bin/env python3
"""librdkafka (confluent-kafka) end-to-end client for the kafka-mock-coordinator tests.

Produces COUNT messages to TOPIC, message i to partition i % PARTITIONS (keyed "key-i"),
then consumes them in consumer group GROUP (classic protocol), commits synchronously and
reads the committed offsets back. Prints one JSON object on stdout; librdkafka's own log
lines go to stderr. Exit code 0 only if every step succeeded.

Used by test/e2e/librdkafka.test.ts:
    python librdkafka_group.py --bootstrap localhost:9092 --topic t --group g --count 20
"""
import argparse
import json
import sys
import time


def log(msg):
    print(f"[librdkafka_group] {msg}", file=sys.stderr, flush=True)


def tp_json(tp):
    return {
        "partition": tp.partition,
        "offset": tp.offset,
        "error": None if tp.error is None else str(tp.error),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bootstrap", required=True, help="bootstrap.servers, HOST:PORT")
    parser.add_argument("--topic", required=True)
    parser.add_argument("--group", required=True, help="consumer group id")
    parser.add_argument("--count", type=int, required=True, help="messages to produce and consume")
    parser.add_argument("--partitions", type=int, default=3, help="message i goes to partition i %% PARTITIONS")
    parser.add_argument("--timeout", type=float, default=40.0, help="seconds for each of produce and consume")
    parser.add_argument("--debug", default="", help="librdkafka debug contexts, e.g. protocol,cgrp")
    parser.add_argument("--config", action="append", default=[], help="extra client setting KEY=VALUE (security.protocol, sasl.*, ssl.*), repeatable")
    args = parser.parse_args()

    result = {"ok": False, "stage": "import"}
    try:
        import confluent_kafka
        from confluent_kafka import Consumer, KafkaError, KafkaException, Producer, TopicPartition
    except ImportError as e:
        result["error"] = f"cannot import confluent_kafka ({e}); install it: pip install confluent-kafka"
        print(json.dumps(result), flush=True)
        return 2
    version = confluent_kafka.version()  # a string in recent releases, a (str, int) tuple in older ones
    result["confluentKafkaVersion"] = version if isinstance(version, str) else version[0]
    result["librdkafkaVersion"] = confluent_kafka.libversion()[0]

    common = {"bootstrap.servers": args.bootstrap, "client.id": "kmc-librdkafka-e2e"}
    common.update(dict(kv.split("=", 1) for kv in args.config))
    if args.debug:
        common["debug"] = args.debug

    # ---- produce ------------------------------------------------------------------
    result["stage"] = "produce"
    delivered = []
    errors = []

    def on_delivery(err, msg):
        if err is not None:
            errors.append({"partition": msg.partition(), "error": str(err)})
        else:
            delivered.append({"partition": msg.partition(), "offset": msg.offset(), "key": msg.key().decode()})

    producer = Producer({**common, "acks": "all", "linger.ms": 5, "message.timeout.ms": int(args.timeout * 1000)})
    for i in range(args.count):
        producer.produce(
            args.topic,
            key=f"key-{i}".encode(),
            value=f"value-{i}".encode(),
            partition=i % args.partitions,
            on_delivery=on_delivery,
        )
        producer.poll(0)
    remaining = producer.flush(args.timeout)
    produced_counts = {}
    for d in delivered:
        produced_counts[d["partition"]] = produced_counts.get(d["partition"], 0) + 1
    result["produced"] = {str(p): n for p, n in sorted(produced_counts.items())}
    result["deliveries"] = sorted(delivered, key=lambda d: (d["partition"], d["offset"]))
    if remaining or errors or len(delivered) != args.count:
        result["error"] = f"produce: {len(delivered)} delivered, {remaining} still queued, errors {errors}"
        print(json.dumps(result), flush=True)
        return 1
    log(f"produced {len(delivered)} messages: {result['produced']}")

    # ---- consume in a group and commit ----------------------------------------------
    result["stage"] = "consume"
    assignments = []

    def on_assign(consumer, partitions):
        assignments.append(sorted(tp.partition for tp in partitions))
        log(f"assigned {[tp.partition for tp in partitions]}")

    consumer = Consumer({
        **common,
        "group.id": args.group,
        "group.protocol": "classic",
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
        "session.timeout.ms": 10000,
        "heartbeat.interval.ms": 1000,
    })
    consumed = []
    consume_errors = []
    try:
        consumer.subscribe([args.topic], on_assign=on_assign)
        deadline = time.monotonic() + args.timeout
        while len(consumed) < args.count and time.monotonic() < deadline:
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            if msg.error() is not None:
                consume_errors.append(str(msg.error()))
                if msg.error().fatal():
                    break
                continue
            consumed.append({
                "partition": msg.partition(),
                "offset": msg.offset(),
                "key": msg.key().decode() if msg.key() is not None else None,
                "value": msg.value().decode() if msg.value() is not None else None,
            })
        consumed_counts = {}
        for m in consumed:
            consumed_counts[m["partition"]] = consumed_counts.get(m["partition"], 0) + 1
        result["consumed"] = {str(p): n for p, n in sorted(consumed_counts.items())}
        result["consumedMessages"] = sorted(consumed, key=lambda m: (m["partition"], m["offset"]))
        result["assignments"] = assignments
        result["consumeErrors"] = consume_errors
        if len(consumed) != args.count:
            result["error"] = f"consume: got {len(consumed)} of {args.count} messages in {args.timeout}s; errors {consume_errors}"
            print(json.dumps(result), flush=True)
            return 1
        log(f"consumed {len(consumed)} messages: {result['consumed']}")

        result["stage"] = "commit"
        try:
            committed = consumer.commit(asynchronous=False)
        except KafkaException as e:
            result["error"] = f"commit: {e}"
            print(json.dumps(result), flush=True)
            return 1
        result["commitResult"] = sorted((tp_json(tp) for tp in committed or []), key=lambda t: t["partition"])
        if any(t["error"] for t in result["commitResult"]):
            result["error"] = "commit: a partition failed"
            print(json.dumps(result), flush=True)
            return 1
        log(f"committed {result['commitResult']}")

        result["stage"] = "committed"
        parts = [TopicPartition(args.topic, p) for p in range(args.partitions)]
        try:
            read_back = consumer.committed(parts, timeout=args.timeout)
        except KafkaException as e:
            result["error"] = f"committed: {e}"
            print(json.dumps(result), flush=True)
            return 1
        result["committed"] = sorted((tp_json(tp) for tp in read_back), key=lambda t: t["partition"])
    finally:
        result_stage = result["stage"]
        result["stage"] = "close"
        consumer.close()
        result["stage"] = result_stage

    result["stage"] = "done"
    result["ok"] = True
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""librdkafka (confluent-kafka) client for the cluster-simulation test (test/e2e/cluster-librdkafka.test.ts).

Consumes COUNT messages already in TOPIC in consumer group GROUP (classic protocol), committing
each message's offset synchronously (retrying a failed commit until it lands), with a short pause
between messages so the test can move the group's coordinator meanwhile. Prints one JSON object
on stdout: consumed counts per partition, the commit errors seen, and the committed offsets read
back. Exit code 0 only if every step succeeded.
"""
import argparse
import json
import sys
import time


def log(msg):
    print(f"[librdkafka_cluster] {msg}", file=sys.stderr, flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--group", required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--partitions", type=int, default=3)
    parser.add_argument("--pause", type=float, default=0.1, help="seconds between messages")
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()

    from confluent_kafka import Consumer, KafkaException, TopicPartition

    result = {"ok": False, "stage": "consume", "consumed": {}, "commitErrors": [], "committed": []}
    consumer = Consumer({
        "bootstrap.servers": args.bootstrap,
        "group.id": args.group,
        "client.id": "librdkafka-cluster",
        "auto.offset.reset": "earliest",
        "enable.auto.commit": False,
        "session.timeout.ms": 10000,
        "heartbeat.interval.ms": 500,
        "topic.metadata.refresh.interval.ms": 2000,
    })
    try:
        consumer.subscribe([args.topic])
        deadline = time.time() + args.timeout
        seen = 0
        while seen < args.count:
            if time.time() > deadline:
                raise RuntimeError(f"consumed only {seen} of {args.count} messages")
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            if msg.error():
                log(f"poll error: {msg.error()}")
                continue
            seen += 1
            key = str(msg.partition())
            result["consumed"][key] = result["consumed"].get(key, 0) + 1
            tp = TopicPartition(msg.topic(), msg.partition(), msg.offset() + 1)
            for attempt in range(100):
                try:
                    res = consumer.commit(offsets=[tp], asynchronous=False)
                    errs = [str(r.error) for r in (res or []) if r.error is not None]
                    if not errs:
                        break
                    result["commitErrors"].append(";".join(errs))
                except KafkaException as e:
                    result["commitErrors"].append(str(e.args[0].name() if e.args and hasattr(e.args[0], "name") else e))
                time.sleep(0.2)
            else:
                raise RuntimeError(f"commit of {tp} never succeeded")
            time.sleep(args.pause)
        result["stage"] = "committed"
        parts = [TopicPartition(args.topic, p) for p in range(args.partitions)]
        committed = consumer.committed(parts, timeout=20)
        result["committed"] = [{"partition": c.partition, "offset": c.offset} for c in committed]
        result["ok"] = True
    except Exception as e:  # noqa: BLE001 - reported in the JSON
        result["error"] = repr(e)
    finally:
        consumer.close()
    print(json.dumps(result), flush=True)
    sys.exit(0 if result["ok"] else 1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A librdkafka consumer (confluent-kafka) reading one partition from the beginning until it has
COUNT records, while the kafka-mock-coordinator test moves the partition's leader. Prints one JSON
object with the values read in order."""
import argparse
import json
import sys
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--timeout", type=float, default=60.0)
    args = p.parse_args()
    result = {"ok": False, "stage": "import"}
    try:
        from confluent_kafka import Consumer, TopicPartition
        consumer = Consumer({
            "bootstrap.servers": args.bootstrap,
            "group.id": "leader-move",
            "client.id": "librdkafka-leader-move",
            "enable.auto.commit": False,
            "topic.metadata.refresh.interval.ms": 1000,
            "fetch.wait.max.ms": 100,
        })
        result["stage"] = "consume"
        consumer.assign([TopicPartition(args.topic, 0, 0)])
        values = []
        deadline = time.time() + args.timeout
        while len(values) < args.count:
            if time.time() > deadline:
                raise RuntimeError(f"timed out with {len(values)} records: {values}")
            msg = consumer.poll(0.2)
            if msg is None:
                continue
            if msg.error() is not None:
                continue
            values.append(msg.value().decode())
            print(f"[librdkafka_leader_move] got {msg.value().decode()} at {msg.offset()} epoch {msg.leader_epoch()}", file=sys.stderr, flush=True)
        consumer.close()
        result.update({"ok": True, "stage": "done", "values": values})
    except Exception as e:  # noqa: BLE001 - reported as JSON
        result["error"] = f"{type(e).__name__}: {e}"
    print(json.dumps(result), flush=True)
    sys.exit(0 if result["ok"] else 1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Reads one partition from the beginning to its end with confluent-kafka (librdkafka), for the
kafka-mock-coordinator tests: `--isolation read_committed|read_uncommitted`, no group (assign),
stops at the partition EOF (the last stable offset under read_committed). Prints one JSON object:
the values read in order and the offsets they were at.
"""
import argparse
import json
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--isolation", required=True)
    p.add_argument("--timeout", type=float, default=60.0)
    args = p.parse_args()
    result = {"ok": False, "stage": "import"}
    try:
        from confluent_kafka import Consumer, KafkaError, TopicPartition

        consumer = Consumer({
            "bootstrap.servers": args.bootstrap,
            "group.id": "librdkafka-isolation-unused",
            "enable.auto.commit": False,
            "enable.partition.eof": True,
            "isolation.level": args.isolation,
        })
        result["stage"] = "assign"
        consumer.assign([TopicPartition(args.topic, 0, 0)])
        values, offsets = [], []
        result["stage"] = "consume"
        import time
        deadline = time.time() + args.timeout
        while time.time() < deadline:
            msg = consumer.poll(1.0)
            if msg is None:
                continue
            if msg.error():
                if msg.error().code() == KafkaError._PARTITION_EOF:
                    break
                raise RuntimeError(str(msg.error()))
            values.append(msg.value().decode())
            offsets.append(msg.offset())
        else:
            raise RuntimeError("no partition EOF before the timeout")
        consumer.close()
        result.update({"ok": True, "stage": "done", "values": values, "offsets": offsets})
    except Exception as e:  # noqa: BLE001 - the test prints whatever failed
        result["error"] = f"{type(e).__name__}: {e}"
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    sys.exit(main())

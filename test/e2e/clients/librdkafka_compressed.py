#!/usr/bin/env python3
"""librdkafka (confluent-kafka) client for the compressed-batch tests of kafka-mock-coordinator.

--mode produce: sends the batches of --batches (a JSON list of batches, each a list of
[key or null, value, timestamp ms]) to partition 0 of TOPIC with compression.type CODEC, one
batch per flush (linger.ms 1000, so a batch's records travel together), and prints each record's
delivery: its offset, or the error's name.
--mode read: reads partition 0 of TOPIC from the beginning to the high watermark and prints every
record (offset, key, value, timestamp) and the offset offsets_for_times gives for --at (ms).

Prints one JSON object on stdout; librdkafka's log lines go to stderr.
Used by test/e2e/compressed-batches.test.ts:
    python librdkafka_compressed.py --bootstrap localhost:9092 --topic t --codec lz4 --mode produce --batches '[[["k","v",1000]]]'
"""
import argparse
import json
import sys


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--codec", default="none", help="compression.type")
    parser.add_argument("--mode", choices=["produce", "read"], required=True)
    parser.add_argument("--batches", default="[]", help="produce: JSON [[[key, value, timestamp], ...], ...]")
    parser.add_argument("--at", type=int, default=-1, help="read: a timestamp (ms) for offsets_for_times")
    parser.add_argument("--timeout", type=float, default=30.0)
    args = parser.parse_args()

    result = {"ok": False, "stage": "import"}
    from confluent_kafka import Consumer, Producer, TopicPartition

    if args.mode == "produce":
        result["stage"] = "produce"
        producer = Producer({
            "bootstrap.servers": args.bootstrap,
            "compression.type": args.codec,
            "linger.ms": 1000,
            "acks": "all",
            "message.send.max.retries": 0,
            "enable.idempotence": False,
        })
        deliveries = []

        def report(err, msg):
            deliveries.append({"key": None if msg.key() is None else msg.key().decode(), "offset": msg.offset() if err is None else None, "error": None if err is None else err.name()})

        for batch in json.loads(args.batches):
            for key, value, timestamp in batch:
                producer.produce(args.topic, key=None if key is None else key.encode(), value=value.encode(), partition=0, timestamp=timestamp, on_delivery=report)
            if producer.flush(args.timeout) != 0:
                result["error"] = "flush timed out"
                print(json.dumps(result), flush=True)
                return 1
        result["deliveries"] = deliveries
    else:
        result["stage"] = "read"
        consumer = Consumer({"bootstrap.servers": args.bootstrap, "group.id": "kmc-compressed-reader", "enable.auto.commit": False, "auto.offset.reset": "earliest"})
        low, high = consumer.get_watermark_offsets(TopicPartition(args.topic, 0), timeout=args.timeout)
        consumer.assign([TopicPartition(args.topic, 0, low)])
        records = []
        while (records[-1]["offset"] if records else low - 1) < high - 1:
            msg = consumer.poll(args.timeout)
            if msg is None:
                result["error"] = f"no record within {args.timeout} s after {len(records)} (watermarks {low}-{high})"
                print(json.dumps(result), flush=True)
                return 1
            if msg.error():
                result["error"] = msg.error().name()
                print(json.dumps(result), flush=True)
                return 1
            records.append({"offset": msg.offset(), "key": None if msg.key() is None else msg.key().decode(), "value": msg.value().decode(), "timestamp": msg.timestamp()[1]})
        result["records"] = records
        if args.at >= 0:
            [found] = consumer.offsets_for_times([TopicPartition(args.topic, 0, args.at)], timeout=args.timeout)
            result["offsetForTime"] = found.offset
        consumer.close()
    result["ok"] = True
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

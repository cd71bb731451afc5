#!/usr/bin/env python3
"""A librdkafka (confluent-kafka) transactional producer for the kafka-mock-coordinator tests.

init_transactions; a transaction of 10 records with send_offsets_to_transaction (offset 10 of the
input topic) committed; one of 5 records (offset 15) aborted; then read_committed and
read_uncommitted consumers read the output partition from the beginning to its end, and the group's
committed offset is read back. Prints one JSON object.
"""
import argparse
import json
import sys
import time


def log(msg):
    print(f"[librdkafka_transactions] {msg}", file=sys.stderr, flush=True)


def read_all(bootstrap, topic, isolation, timeout):
    from confluent_kafka import Consumer, TopicPartition

    c = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": f"librdkafka-txn-reader-{isolation}",
        "client.id": f"librdkafka-txn-reader-{isolation}",
        "isolation.level": isolation,
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
    })
    tp = TopicPartition(topic, 0, 0)
    c.assign([tp])
    _, high = c.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    values = []
    deadline = time.time() + timeout
    while time.time() < deadline:
        pos = c.position([TopicPartition(topic, 0)])[0].offset
        if pos >= 0 and pos >= high:
            break
        m = c.poll(0.2)
        if m is None or m.error():
            continue
        values.append(m.value().decode())
    c.close()
    return values


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--input", required=True)
    p.add_argument("--group", required=True)
    p.add_argument("--txn-id", required=True)
    p.add_argument("--timeout", type=float, default=60.0)
    args = p.parse_args()
    result = {"ok": False, "stage": "import"}
    try:
        from confluent_kafka import Consumer, Producer, TopicPartition
        from confluent_kafka.admin import AdminClient, NewTopic

        result["stage"] = "create topics"
        admin = AdminClient({"bootstrap.servers": args.bootstrap})
        for f in admin.create_topics([NewTopic(args.out, 1, 1), NewTopic(args.input, 1, 1)]).values():
            f.result(timeout=30)

        result["stage"] = "init_transactions"
        producer = Producer({"bootstrap.servers": args.bootstrap, "transactional.id": args.txn_id, "client.id": "librdkafka-txn"})
        producer.init_transactions(args.timeout)


        # A consumer's group metadata for send_offsets_to_transaction (a consumer that never joined: generation -1).
        meta_consumer = Consumer({"bootstrap.servers": args.bootstrap, "group.id": args.group, "enable.auto.commit": False})
        group_metadata = meta_consumer.consumer_group_metadata()

        result["stage"] = "committed transaction"
        producer.begin_transaction()
        for i in range(10):
            producer.produce(args.out, value=f"c{i}", partition=0)
        producer.send_offsets_to_transaction([TopicPartition(args.input, 0, 10)], group_metadata, args.timeout)
        producer.commit_transaction(args.timeout)

        result["stage"] = "aborted transaction"
        producer.begin_transaction()
        for i in range(5):
            producer.produce(args.out, value=f"a{i}", partition=0)
        producer.send_offsets_to_transaction([TopicPartition(args.input, 0, 15)], group_metadata, args.timeout)
        producer.flush(args.timeout)
        producer.abort_transaction(args.timeout)

        result["stage"] = "read"
        result["readCommitted"] = read_all(args.bootstrap, args.out, "read_committed", args.timeout)
        result["readUncommitted"] = read_all(args.bootstrap, args.out, "read_uncommitted", args.timeout)
        committed = meta_consumer.committed([TopicPartition(args.input, 0)], timeout=10)
        result["committed"] = committed[0].offset
        meta_consumer.close()
        result["ok"] = True
        result["stage"] = "done"
    except Exception as e:  # noqa: BLE001 - reported to the test
        log(f"failed: {e!r}")
        result["error"] = repr(e)
    print(json.dumps(result), flush=True)
    sys.exit(0 if result["ok"] else 1)


if __name__ == "__main__":
    main()

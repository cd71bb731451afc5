#!/usr/bin/env python3
"""KIP-848 (group.protocol=consumer) end-to-end client for the kafka-mock-coordinator tests.

Produces PHASE messages (message i to partition i % PARTITIONS), runs three consumers of GROUP in
this process (polled in turn), waits until each holds PARTITIONS/3 partitions, consumes and commits
synchronously; closes the third member, waits until the two left hold PARTITIONS/2 each, produces
PHASE more messages, consumes and commits them. Prints one JSON object on stdout.
"""
import argparse
import json
import sys
import time


def log(msg):
    print(f"[librdkafka_consumer_group] {msg}", file=sys.stderr, flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--group", required=True)
    p.add_argument("--partitions", type=int, default=6)
    p.add_argument("--phase", type=int, default=30)
    p.add_argument("--assignor", default="")
    p.add_argument("--timeout", type=float, default=40.0)
    args = p.parse_args()
    result = {"ok": False, "stage": "import"}
    from confluent_kafka import Consumer, Producer, KafkaException

    common = {"bootstrap.servers": args.bootstrap}
    produced = 0

    def produce(start, count):
        nonlocal produced
        prod = Producer({**common, "linger.ms": 5})
        for i in range(start, start + count):
            prod.produce(args.topic, key=f"key-{i}".encode(), value=f"value-{i}".encode(), partition=i % args.partitions)
        left = prod.flush(args.timeout)
        if left:
            raise RuntimeError(f"{left} messages not delivered")
        produced += count

    result["stage"] = "produce-1"
    produce(0, args.phase)

    conf = {
        **common,
        "group.id": args.group,
        "group.protocol": "consumer",
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
    }
    if args.assignor:
        conf["group.remote.assignor"] = args.assignor
    consumers = []
    for n in range(3):
        consumers.append(Consumer({**conf, "client.id": f"kmc-848-{n}"}))
    for c in consumers:
        c.subscribe([args.topic])

    consumed = []  # (member, partition, offset)
    errors = []

    def poll_round(active):
        for idx in active:
            msg = consumers[idx].poll(0.05)
            if msg is None:
                continue
            if msg.error() is not None:
                errors.append(str(msg.error()))
                continue
            consumed.append({"member": idx, "partition": msg.partition(), "offset": msg.offset(), "key": msg.key().decode()})
            consumers[idx].commit(message=msg, asynchronous=False)

    def assignment(idx):
        return sorted(tp.partition for tp in consumers[idx].assignment())

    def wait_for(active, predicate, what):
        deadline = time.monotonic() + args.timeout
        while time.monotonic() < deadline:
            poll_round(active)
            if predicate():
                return
        raise RuntimeError(f"timed out waiting for {what}; assignments {[assignment(i) for i in active]}; consumed {len(consumed)}; errors {errors}")

    result["stage"] = "three-members"
    per3 = args.partitions // 3
    wait_for([0, 1, 2], lambda: all(len(assignment(i)) == per3 for i in range(3)) and len({p for i in range(3) for p in assignment(i)}) == args.partitions and len(consumed) >= args.phase, "three balanced members and phase 1 consumed")
    result["assignments3"] = [assignment(i) for i in range(3)]

    result["stage"] = "leave"
    consumers[2].close()
    per2 = args.partitions // 2
    wait_for([0, 1], lambda: all(len(assignment(i)) == per2 for i in range(2)) and len({p for i in range(2) for p in assignment(i)}) == args.partitions, "two balanced members")
    result["assignments2"] = [assignment(i) for i in range(2)]

    result["stage"] = "produce-2"
    produce(args.phase, args.phase)
    result["stage"] = "consume-2"
    wait_for([0, 1], lambda: len(consumed) >= 2 * args.phase, "phase 2 consumed")
    # A little more polling: nothing must arrive twice.
    end = time.monotonic() + 1.0
    while time.monotonic() < end:
        poll_round([0, 1])

    result["stage"] = "committed"
    from confluent_kafka import TopicPartition
    committed = consumers[0].committed([TopicPartition(args.topic, p) for p in range(args.partitions)], timeout=args.timeout)
    result["committed"] = {str(tp.partition): tp.offset for tp in committed}
    for c in consumers[:2]:
        c.close()
    result["consumed"] = consumed
    result["errors"] = errors
    result["produced"] = produced
    result["stage"] = "done"
    result["ok"] = True
    print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception as e:  # report, do not hide
        print(json.dumps({"ok": False, "stage": "exception", "error": repr(e)}), flush=True)
        sys.exit(1)

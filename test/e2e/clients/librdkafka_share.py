#!/usr/bin/env python3
"""librdkafka's share consumer (Python confluent-kafka's experimental `ShareConsumer`, KIP-932)
for the kafka-mock-coordinator tests (test/e2e/share-librdkafka.test.ts).

Each mode prints one JSON object on stdout (the last line); librdkafka's own log goes to stderr.
The records are produced beforehand with librdkafka_resume.py produce (record i: value "value-i").

  two:     two ShareConsumers in share group GROUP, both subscribed to TOPIC, polled in turn from
           this one thread (each instance is used by one thread only, as the client requires)
           with implicit acknowledgement, until together they hold COUNT distinct records and
           nothing new arrived for LINGER seconds (to catch a record delivered twice); then both
           close (close commits the pending acknowledgements and leaves the group). Prints each
           consumer's "partition:offset" list and the delivery counts it saw.

  explicit: one ShareConsumer in GROUP with share.acknowledgement.mode=explicit on a 1-partition
           TOPIC of COUNT records: on first delivery it RELEASEs value-3, REJECTs value-5 and
           ACCEPTs the rest (commit_sync after each poll), and keeps polling until value-3 came
           back and nothing new arrived for LINGER seconds. Prints "<value>#<delivery count>" per
           delivery, in order.

    python librdkafka_share.py two --bootstrap localhost:9092 --topic t --group g --count 200
"""
import argparse
import json
import sys
import time


def emit(result):
    print(json.dumps(result), flush=True)


def text(b):
    return b.decode() if b is not None else None


def delivery_count(msg):
    # Message.delivery_count() exists on share-consumer messages of newer bindings only.
    get = getattr(msg, "delivery_count", None)
    return get() if callable(get) else None


def two(args, result, common):
    from confluent_kafka import ShareConsumer

    result["stage"] = "subscribe"
    consumers = []
    seen = [[], []]
    counts = [{}, {}]
    errors = []
    try:
        for i in range(2):
            c = ShareConsumer({**common, "group.id": args.group, "client.id": f"{args.client_id}-{i}"})
            c.subscribe([args.topic])
            consumers.append(c)
        result["stage"] = "poll"
        distinct = set()
        deadline = time.monotonic() + args.timeout
        last_new = None
        while time.monotonic() < deadline:
            for i, c in enumerate(consumers):
                for msg in c.poll(0.2):
                    if msg.error() is not None:
                        errors.append(f"consumer {i}: {msg.error()}")
                        continue
                    key = f"{msg.partition()}:{msg.offset()}"
                    seen[i].append(key)
                    dc = delivery_count(msg)
                    if dc is not None:
                        counts[i][str(dc)] = counts[i].get(str(dc), 0) + 1
                    if key not in distinct:
                        distinct.add(key)
                        last_new = time.monotonic()
            if len(distinct) >= args.count and time.monotonic() - last_new >= args.linger:
                break
        result["stage"] = "close"
    finally:
        for c in consumers:
            c.close()
    result["records"] = seen
    result["deliveryCounts"] = counts
    result["errors"] = errors


def explicit(args, result, common):
    from confluent_kafka import AcknowledgeType, ShareConsumer

    result["stage"] = "subscribe"
    deliveries = []
    commits = []
    c = ShareConsumer({**common, "group.id": args.group, "client.id": args.client_id,
                       "share.acknowledgement.mode": "explicit"})
    try:
        c.subscribe([args.topic])
        result["stage"] = "poll"
        deadline = time.monotonic() + args.timeout
        last_new = None
        while time.monotonic() < deadline:
            batch = c.poll(0.2)
            for msg in batch:
                if msg.error() is not None:
                    raise RuntimeError(f"poll: {msg.error()}")
                value = text(msg.value())
                deliveries.append(f"{value}#{msg.delivery_count()}")
                last_new = time.monotonic()
                first = msg.delivery_count() == 1
                kind = AcknowledgeType.RELEASE if value == "value-3" and first else AcknowledgeType.REJECT if value == "value-5" else AcknowledgeType.ACCEPT
                c.acknowledge(msg, kind)
            if batch:
                for tp, err in c.commit_sync(args.timeout).items():
                    commits.append({"partition": tp.partition, "error": None if err is None else str(err)})
            if "value-3#2" in deliveries and time.monotonic() - last_new >= args.linger:
                break
        result["stage"] = "close"
    finally:
        c.close()
    result["deliveries"] = deliveries
    result["commits"] = commits


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["two", "explicit"])
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--group")
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--client-id", default="kmc-librdkafka-share")
    parser.add_argument("--linger", type=float, default=1.0)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--debug")
    args = parser.parse_args()

    result = {"ok": False, "stage": "start"}
    common = {"bootstrap.servers": args.bootstrap}
    if args.debug:
        common["debug"] = args.debug
    try:
        if args.mode == "two":
            two(args, result, common)
        else:
            explicit(args, result, common)
        result["ok"] = True
    except Exception as err:  # the test prints it with the stage
        result["error"] = f"{type(err).__name__}: {err}"
    emit(result)
    sys.exit(0 if result["ok"] else 1)


if __name__ == "__main__":
    main()

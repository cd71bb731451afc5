#!/usr/bin/env python3
"""librdkafka's 0113_cooperative_rebalance `k_add_partition` scenario, for the kafka-mock-coordinator tests.

One consumer (cooperative-sticky, topic.metadata.refresh.interval.ms=3000, a rebalance callback
counting assigns and revokes) subscribes to a 1-partition topic; once it holds that partition the
topic grows to 2 partitions with AdminClient.create_partitions; the consumer must end up holding
both. With the classic protocol librdkafka's test expects 1 assign call and no revoke before the
change, 2 assign calls and no revoke after, and 1 revoke at close. Prints one JSON object.
"""
import argparse
import json
import sys
import time


def log(msg):
    print(f"[librdkafka_add_partition] {msg}", file=sys.stderr, flush=True)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bootstrap", required=True)
    p.add_argument("--topic", required=True)
    p.add_argument("--group", required=True)
    p.add_argument("--protocol", default="classic")
    p.add_argument("--timeout", type=float, default=60.0)
    args = p.parse_args()
    result = {"ok": False, "stage": "import"}
    try:
        from confluent_kafka import Consumer
        from confluent_kafka.admin import AdminClient, NewPartitions

        counts = {"assign": 0, "revoke": 0, "assigned": [], "revoked": []}

        def on_assign(consumer, partitions):
            counts["assign"] += 1
            counts["assigned"].append(sorted(tp.partition for tp in partitions))
            consumer.incremental_assign(partitions)

        def on_revoke(consumer, partitions):
            counts["revoke"] += 1
            counts["revoked"].append(sorted(tp.partition for tp in partitions))
            consumer.incremental_unassign(partitions)

        conf = {
            "bootstrap.servers": args.bootstrap,
            "group.id": args.group,
            "client.id": "librdkafka-add-partition",
            "topic.metadata.refresh.interval.ms": 3000,
            "auto.offset.reset": "earliest",
        }
        if args.protocol == "classic":
            conf["partition.assignment.strategy"] = "cooperative-sticky"
            conf["session.timeout.ms"] = 15000
        else:
            conf["group.protocol"] = "consumer"
        consumer = Consumer(conf)
        result["stage"] = "subscribe"
        consumer.subscribe([args.topic], on_assign=on_assign, on_revoke=on_revoke)

        def assignment():
            return sorted(tp.partition for tp in consumer.assignment())

        deadline = time.time() + args.timeout
        grown = False
        before = None
        while True:
            if time.time() > deadline:
                raise RuntimeError(f"timed out at stage {result['stage']} with assignment {assignment()}, callbacks {counts}")
            consumer.poll(0.5)
            if assignment() == [0] and not grown:
                before = {"assign": counts["assign"], "revoke": counts["revoke"]}
                result["stage"] = "create-partitions"
                admin = AdminClient({"bootstrap.servers": args.bootstrap})
                futures = admin.create_partitions([NewPartitions(args.topic, 2)], operation_timeout=30)
                futures[args.topic].result(30)
                grown = True
                result["stage"] = "wait-two-partitions"
                log("topic grown to 2 partitions")
            if assignment() == [0, 1] and grown:
                break
        after = {"assign": counts["assign"], "revoke": counts["revoke"]}
        result["stage"] = "close"
        consumer.close()
        result.update({
            "ok": True,
            "stage": "done",
            "before": before,
            "after": after,
            "atClose": {"assign": counts["assign"], "revoke": counts["revoke"]},
            "assigned": counts["assigned"],
            "revoked": counts["revoked"],
        })
    except Exception as e:  # noqa: BLE001 - reported as JSON
        result["error"] = f"{type(e).__name__}: {e}"
    print(json.dumps(result), flush=True)
    sys.exit(0 if result["ok"] else 1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""librdkafka (confluent-kafka) connection check for the kafka-mock-coordinator security tests.

Asks for the cluster's metadata with the given client settings and reports what librdkafka
reported: {"ok": true, "brokers": N} or {"ok": false, "errors": [...]} with the error callback's
messages (authentication and TLS failures arrive there). Exit code 0 either way, 2 without
confluent_kafka.

Used by test/e2e/librdkafka-security.test.ts:
    python librdkafka_connect.py --bootstrap localhost:9093 --config security.protocol=SASL_SSL ...
"""
import argparse
import json


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bootstrap", required=True)
    parser.add_argument("--config", action="append", default=[], help="client setting KEY=VALUE, repeatable")
    parser.add_argument("--timeout", type=float, default=10.0)
    args = parser.parse_args()
    try:
        from confluent_kafka.admin import AdminClient
        from confluent_kafka import KafkaException
    except ImportError as e:
        print(json.dumps({"ok": False, "stage": "import", "error": str(e)}), flush=True)
        return 2
    errors = []
    conf = {"bootstrap.servers": args.bootstrap, "client.id": "kmc-librdkafka-connect", "error_cb": lambda err: errors.append(err.str())}
    conf.update(dict(kv.split("=", 1) for kv in args.config))
    admin = AdminClient(conf)
    try:
        md = admin.list_topics(timeout=args.timeout)
        print(json.dumps({"ok": True, "stage": "done", "brokers": len(md.brokers), "errors": errors}), flush=True)
    except KafkaException as e:
        admin.poll(1.0)  # serves the error callback with what librdkafka logged
        print(json.dumps({"ok": False, "stage": "metadata", "error": str(e), "errors": errors}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

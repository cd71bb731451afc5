"""Runs the README's Python recipe (mock_broker.py) as a suite would: the server it starts, a
fault rule failing the first OffsetCommit, a confluent-kafka producer and consumer, then close();
then a server on a data directory restarted under a live producer.
Prints one JSON line per step. argv: the server's command line (e.g. node dist/cli.cjs)."""
import json
import sys
import tempfile
import time

from confluent_kafka import Consumer, Producer

from mock_broker import MockBroker

kafka = MockBroker(sys.argv[1:])
print(json.dumps({"event": "started", "bootstrap": kafka.bootstrap, "admin": kafka.admin}), flush=True)
rule = kafka.fault({"match": {"api": "OffsetCommit", "group": "billing"}, "action": {"type": "error", "error": "COORDINATOR_NOT_AVAILABLE"}})
producer = Producer({"bootstrap.servers": kafka.bootstrap})
for i in range(3):
    producer.produce("orders", key=f"k{i}", value=f"v{i}")
producer.flush(30)
del producer
consumer = Consumer({"bootstrap.servers": kafka.bootstrap, "group.id": "billing", "auto.offset.reset": "earliest", "enable.auto.commit": False})
consumer.subscribe(["orders"])
values = []
while len(values) < 3:
    message = consumer.poll(30)
    if message is not None and message.error() is None:
        values.append(message.value().decode())
committed = None
for attempt in range(5):
    try:
        committed = [(p.partition, p.offset) for p in consumer.commit(asynchronous=False)]
        break
    except Exception as error:  # the rule's COORDINATOR_NOT_AVAILABLE, once
        print(json.dumps({"event": "commit-failed", "error": str(error)}), flush=True)
consumer.close()
fired = rule.wait_fired(1)
rule.remove()
print(json.dumps({"event": "consumed", "values": values, "committed": committed, "ruleFired": fired, "rulesLeft": len(kafka.call("GET", "/faults")["faults"])}), flush=True)

# A rule for a with block (removed at its end), and the manual clock.
with MockBroker(sys.argv[1:], "--clock", "manual") as manual, manual.fault({"match": {"api": "Metadata"}, "action": {"type": "delay", "ms": 1}, "times": "unlimited"}) as delay:
    before = manual.call("GET", "/clock")["now"]
    after = manual.advance_clock(60_000)
    inside = [f["id"] for f in manual.call("GET", "/faults")["faults"]]
print(json.dumps({"event": "manual", "advanced": after - before, "ruleInside": inside == [delay.id], "exitCode": manual.process.returncode}), flush=True)
kafka.close()
print(json.dumps({"event": "closed", "exitCode": kafka.process.returncode}), flush=True)

# A server on a data directory restarted under a live producer: same address, records kept.
with tempfile.TemporaryDirectory(prefix="kmc-recipe-") as data:
    kafka = MockBroker(sys.argv[1:], f"--data-dir={data}")  # the recipe knows either form
    before = kafka.bootstrap
    producer = Producer({"bootstrap.servers": kafka.bootstrap})
    for i in range(3):
        producer.produce("kept", value=f"before{i}")
    producer.flush(30)
    kafka.restart()
    for i in range(3):
        producer.produce("kept", value=f"after{i}")
    left = producer.flush(60)
    reader = Consumer({"bootstrap.servers": kafka.bootstrap, "group.id": "kept-reader", "auto.offset.reset": "earliest"})
    reader.subscribe(["kept"])
    kept = []
    deadline = time.monotonic() + 60
    while len(kept) < 6 and time.monotonic() < deadline:
        message = reader.poll(1)
        if message is not None and message.error() is None:
            kept.append(message.value().decode())
    reader.close()
    kafka.close()
    print(json.dumps({"event": "restarted", "sameBootstrap": kafka.bootstrap == before, "unsent": left, "values": kept}), flush=True)

# With --brokers 3, each broker's port by id from the ready line.
# restart() brings every broker back on its port (free ports are consecutive from the first's).
three = MockBroker(sys.argv[1:], "--brokers", "3")
before = dict(three.brokers)
three.restart()
print(json.dumps({"event": "brokers", "ids": sorted(three.brokers), "firstIsBootstrap": three.bootstrap.endswith(f":{three.brokers[1]}"),
                  "consecutive": [before[i] - before[1] for i in (1, 2, 3)], "samePortsAfterRestart": three.brokers == before}), flush=True)
three.close()

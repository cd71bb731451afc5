"""kafka-mock-coordinator for a Python test suite (the README's recipe; no dependency but the
standard library): starts the server as a child process, in memory on free ports, reads its ready
line and keeps reading its output (a pipe nobody reads would fill and hold the server up), and
stops it on close(). It also stops when this process dies, however (--stop-when-stdin-closes)."""
import json
import subprocess
import threading
import urllib.request


class MockBroker:
    """args go to the server (e.g. "--clock", "manual"); with "--data-dir", dir it keeps its data
    there instead of in memory, so restart() finds it again."""

    # npx --no: only a kafka-mock-coordinator installed in the project; without a terminal npx
    # would otherwise download and run whatever the npm registry has under that name.
    def __init__(self, command=("npx", "--no", "kafka-mock-coordinator"), *args):
        if isinstance(command, str):
            raise TypeError(f"command is the server's command line as a tuple, e.g. ('node', '/abs/path/dist/cli.cjs'), "
                            f"its arguments after it: MockBroker(command, '--clock', 'manual'); got the string {command!r}")
        memory = () if any(a == "--data-dir" or a.startswith("--data-dir=") for a in args) else ("--in-memory",)
        self.argv = [*command, *memory, "--port", "0", "--admin-port", "0", "--stop-when-stdin-closes", *args]
        self._start(self.argv)

    def _start(self, argv):
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for line in self.process.stdout:
            ready = json.loads(line) if line.startswith("{") else {}
            if str(ready.get("msg", "")).startswith("kafka-mock-coordinator ready"):
                self.bootstrap, self.admin = ready["bootstrap"], ready["admin"]
                # With --brokers N: each broker's port by id (empty with one broker).
                self.brokers = {int(k): v for k, v in ready.get("brokers", {}).items()}
                break
        else:
            raise RuntimeError(f"the server exited before it was ready (status {self.process.wait()})")
        threading.Thread(target=self.process.stdout.read, daemon=True).start()

    def call(self, method, path, body=None):
        """The admin API (fault rules, the manual clock): its JSON answer."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.admin + path, data=data, method=method, headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request) as answer:
            return json.loads(answer.read() or "null")

    def fault(self, rule):
        """Adds a fault rule (the JSON POST /faults takes, e.g. {"match": {"api": "OffsetCommit"},
        "action": {"type": "error", "error": "REBALANCE_IN_PROGRESS"}}) and returns it as a Fault;
        in a with block it is removed when the block ends."""
        return Fault(self, self.call("POST", "/faults", rule)["id"])

    def advance_clock(self, ms):
        """Moves the manual clock (a server started with "--clock", "manual") ms forward, firing what
        falls due (session timeouts, transaction timeouts, acquisition locks); returns its time (ms)."""
        return self.call("POST", "/clock/advance", {"ms": ms})["now"]

    def restart(self):
        """Stops the server (every acknowledged write kept) and starts it again on the same ports, so
        running clients reconnect; on a data directory with its data, in memory empty."""
        self.close()
        ports = ["--port", self.bootstrap.rsplit(":", 1)[1]]
        if self.admin:
            ports += ["--admin-port", self.admin.rsplit(":", 1)[1]]
        self._start([*self.argv, *ports])

    def close(self):
        self.process.terminate()
        self.process.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Fault:
    """A fault rule on the server: fired() counts its firings; wait_fired(n) waits until it fired n
    times (urllib.error.HTTPError 408 after timeout_ms, 410 as soon as it cannot get there: removed,
    exhausted or expired); remove() removes it, as the end of its with block does."""

    def __init__(self, broker, rule_id):
        self.broker, self.id = broker, rule_id

    def fired(self):
        return self.broker.call("GET", f"/faults/{self.id}")["fired"]

    def wait_fired(self, count, timeout_ms=10000):
        return self.broker.call("POST", f"/faults/{self.id}/wait", {"count": count, "timeoutMs": timeout_ms})["fired"]

    def remove(self):
        self.broker.call("DELETE", f"/faults/{self.id}")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()

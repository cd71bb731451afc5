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

    def __init__(self, command=("npx", "kafka-mock-coordinator"), *args):
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

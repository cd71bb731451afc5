// Package mockbroker starts kafka-mock-coordinator for a Go test suite (the README's recipe; the
// standard library only: copy this file into your module). It runs the server as a child process,
// in memory on free ports, reads its ready line, keeps reading its output (a pipe nobody reads
// would fill and hold the server up), and stops it on Close. The server also stops when the test
// binary dies, however (--stop-when-stdin-closes: the pipe on its stdin closes).
//
//	func TestMain(m *testing.M) {
//		kafka, err := mockbroker.Start([]string{"npx", "--no", "kafka-mock-coordinator"})
//		if err != nil { log.Fatal(err) }
//		code := m.Run() // kafka.Bootstrap for kgo.SeedBrokers; kafka.Call for fault rules
//		kafka.Close()
//		os.Exit(code)
//	}
package mockbroker

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"time"
)

// Broker is a running server: Bootstrap is host:port for bootstrap.servers, Admin the admin API's
// URL, Brokers each broker's port by id with --brokers N (nil with one broker).
type Broker struct {
	Bootstrap, Admin string
	Brokers          map[string]int
	argv             []string
	cmd              *exec.Cmd
	stdin            io.Closer
}

// Start runs command (e.g. {"npx", "--no", "kafka-mock-coordinator"}: --no, or npx without a
// terminal downloads and runs whatever the npm registry has under that name when the project has
// none installed; {"node", "dist/cli.cjs"} in a
// clone) with the recipe's flags, then args (e.g. "--clock", "manual"; with "--data-dir", dir the
// server keeps its data there instead of in memory, for Restart), and waits for its ready line.
func Start(command []string, args ...string) (*Broker, error) {
	argv := append([]string{}, command...)
	if !slices.ContainsFunc(args, func(a string) bool { return a == "--data-dir" || strings.HasPrefix(a, "--data-dir=") }) {
		argv = append(argv, "--in-memory")
	}
	argv = append(append(argv, "--port", "0", "--admin-port", "0", "--stop-when-stdin-closes"), args...)
	b := &Broker{argv: argv}
	if err := b.start(argv); err != nil {
		return nil, err
	}
	return b, nil
}

// Restart stops the server (every acknowledged write kept) and starts it again on the same ports,
// so running clients reconnect; on a data directory with its data, in memory empty.
func (b *Broker) Restart() error {
	if err := b.Close(); err != nil {
		return err
	}
	ports := []string{"--port", b.Bootstrap[strings.LastIndex(b.Bootstrap, ":")+1:]}
	if b.Admin != "" {
		ports = append(ports, "--admin-port", b.Admin[strings.LastIndex(b.Admin, ":")+1:])
	}
	return b.start(append(slices.Clip(b.argv), ports...))
}

func (b *Broker) start(argv []string) error {
	cmd := exec.Command(argv[0], argv[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 64*1024), 1024*1024)
	for lines.Scan() {
		var ready struct {
			Msg, Bootstrap, Admin string
			Brokers               map[string]int
		}
		if json.Unmarshal(lines.Bytes(), &ready) == nil && strings.HasPrefix(ready.Msg, "kafka-mock-coordinator ready") {
			go io.Copy(io.Discard, stdout)
			b.Bootstrap, b.Admin, b.Brokers, b.cmd, b.stdin = ready.Bootstrap, ready.Admin, ready.Brokers, cmd, stdin
			return nil
		}
	}
	stdin.Close()
	return fmt.Errorf("the server exited before it was ready: %v", cmd.Wait())
}

// Call sends body (nil: none) as JSON to the admin API (fault rules, the manual clock) and decodes its JSON answer into out (nil: dropped).
func (b *Broker) Call(method, path string, body, out any) error {
	var payload io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		payload = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, b.Admin+path, payload)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		text, _ := io.ReadAll(res.Body)
		return fmt.Errorf("%s %s: %s %s", method, path, res.Status, text)
	}
	if out == nil {
		return nil
	}
	return json.NewDecoder(res.Body).Decode(out)
}

// Fault is a fault rule on the server (AddFault).
type Fault struct {
	ID string
	b  *Broker
}

// AddFault adds a fault rule (what POST /faults takes, e.g. map[string]any{"match":
// map[string]any{"api": "OffsetCommit"}, "action": map[string]any{"type": "error", "error":
// "REBALANCE_IN_PROGRESS"}}); defer its Remove.
func (b *Broker) AddFault(rule any) (*Fault, error) {
	var added struct{ ID string }
	if err := b.Call("POST", "/faults", rule, &added); err != nil {
		return nil, err
	}
	return &Fault{ID: added.ID, b: b}, nil
}

// Fired is how many times the rule has fired.
func (f *Fault) Fired() (int, error) {
	var rule struct{ Fired int }
	err := f.b.Call("GET", "/faults/"+f.ID, nil, &rule)
	return rule.Fired, err
}

// WaitFired waits until the rule fired count times: an error (408) after timeout, or (410) as soon
// as it cannot get there (removed, exhausted or expired).
func (f *Fault) WaitFired(count int, timeout time.Duration) error {
	return f.b.Call("POST", "/faults/"+f.ID+"/wait", map[string]any{"count": count, "timeoutMs": timeout.Milliseconds()}, nil)
}

// Remove removes the rule.
func (f *Fault) Remove() error {
	return f.b.Call("DELETE", "/faults/"+f.ID, nil, nil)
}

// AdvanceClock moves the manual clock (a server started with "--clock", "manual") by d, firing
// what falls due (session timeouts, transaction timeouts, acquisition locks); it returns the
// clock's time in ms.
func (b *Broker) AdvanceClock(d time.Duration) (int64, error) {
	var clock struct{ Now int64 }
	err := b.Call("POST", "/clock/advance", map[string]any{"ms": d.Milliseconds()}, &clock)
	return clock.Now, err
}

// Close stops the server (as on SIGTERM: its stdin closes) and waits for it to exit.
func (b *Broker) Close() error {
	b.stdin.Close()
	return b.cmd.Wait()
}

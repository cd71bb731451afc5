// Package mockbroker starts kafka-mock-coordinator for a Go test suite (the README's recipe; the
// standard library only: copy this file into your module). It runs the server as a child process,
// in memory on free ports, reads its ready line, keeps reading its output (a pipe nobody reads
// would fill and hold the server up), and stops it on Close. The server also stops when the test
// binary dies, however (--stop-when-stdin-closes: the pipe on its stdin closes).
//
//	func TestMain(m *testing.M) {
//		kafka, err := mockbroker.Start([]string{"npx", "kafka-mock-coordinator"})
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
	"strings"
)

// Broker is a running server: Bootstrap is host:port for bootstrap.servers, Admin the admin API's URL.
type Broker struct {
	Bootstrap, Admin string
	cmd              *exec.Cmd
	stdin            io.Closer
}

// Start runs command (e.g. {"npx", "kafka-mock-coordinator"}, or {"node", "dist/cli.cjs"} in a
// clone) with the recipe's flags, then args (e.g. "--clock", "manual"), and waits for its ready line.
func Start(command []string, args ...string) (*Broker, error) {
	argv := append(append(command[1:len(command):len(command)], "--in-memory", "--port", "0", "--admin-port", "0", "--stop-when-stdin-closes"), args...)
	cmd := exec.Command(command[0], argv...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	lines := bufio.NewScanner(stdout)
	lines.Buffer(make([]byte, 64*1024), 1024*1024)
	for lines.Scan() {
		var ready struct{ Msg, Bootstrap, Admin string }
		if json.Unmarshal(lines.Bytes(), &ready) == nil && strings.HasPrefix(ready.Msg, "kafka-mock-coordinator ready") {
			go io.Copy(io.Discard, stdout)
			return &Broker{Bootstrap: ready.Bootstrap, Admin: ready.Admin, cmd: cmd, stdin: stdin}, nil
		}
	}
	stdin.Close()
	return nil, fmt.Errorf("the server exited before it was ready: %v", cmd.Wait())
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

// Close stops the server (as on SIGTERM: its stdin closes) and waits for it to exit.
func (b *Broker) Close() error {
	b.stdin.Close()
	return b.cmd.Wait()
}

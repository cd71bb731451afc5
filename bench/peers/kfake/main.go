// A one-broker kfake cluster (franz-go's in-process fake Kafka) for `npm run bench`: prints
// `kfake ready on HOST:PORT` once listening and runs until SIGTERM or SIGINT.
//
//	-data-dir DIR   persist to DIR (kfake.DataDir); without it everything stays in memory
//	-sync           fsync each written batch (kfake.SyncWrites); only with -data-dir
//	-config k=v     a broker config (kfake.BrokerConfigs), repeatable
//	-port N         listen port (0: any free port)
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/twmb/franz-go/pkg/kfake"
)

type configFlags map[string]string

func (c configFlags) String() string { return fmt.Sprint(map[string]string(c)) }

func (c configFlags) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok {
		return fmt.Errorf("config %q is not key=value", v)
	}
	c[k] = val
	return nil
}

func main() {
	configs := configFlags{}
	dataDir := flag.String("data-dir", "", "persist to this directory")
	syncWrites := flag.Bool("sync", false, "fsync each written batch")
	port := flag.Int("port", 0, "listen port")
	flag.Var(configs, "config", "broker config key=value (repeatable)")
	flag.Parse()

	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.Ports(*port)}
	if len(configs) > 0 {
		opts = append(opts, kfake.BrokerConfigs(configs))
	}
	if *dataDir != "" {
		opts = append(opts, kfake.DataDir(*dataDir))
		if *syncWrites {
			opts = append(opts, kfake.SyncWrites())
		}
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "kfake:", err)
		os.Exit(1)
	}
	fmt.Printf("kfake %s ready on %s\n", kfakeVersion(), c.ListenAddrs()[0])
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	c.Close()
}

// kfakeVersion is the kfake module version this binary was built with (its go.mod pin).
func kfakeVersion() string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == "github.com/twmb/franz-go/pkg/kfake" {
				return dep.Version
			}
		}
	}
	return "(unknown version)"
}

// The README's Go recipe run as a suite runs it: TestMain starts the server with mockbroker.Start
// (the command from KMC_SERVER, e.g. "node dist/cli.cjs"; the package's default otherwise), a
// test adds a fault rule failing the group's first OffsetCommit, produces and consumes with
// franz-go, and commits through it; TestMain stops the server. test/e2e/go-recipe.test.ts runs it.
package mockbroker_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"kmc/franzgoclient/mockbroker"
)

var kafka *mockbroker.Broker

func TestMain(m *testing.M) {
	var err error
	if kafka, err = mockbroker.Start(serverCommand()); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("started %s %s\n", kafka.Bootstrap, kafka.Admin)
	code := m.Run()
	fmt.Printf("closed %v\n", kafka.Close())
	os.Exit(code)
}

// serverCommand is the server's command line: KMC_SERVER's words, the package's default otherwise.
func serverCommand() []string {
	if server := os.Getenv("KMC_SERVER"); server != "" {
		return strings.Fields(server)
	}
	return []string{"npx", "--no", "kafka-mock-coordinator"}
}

func TestConsumesThroughAFaultRule(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	rule, err := kafka.AddFault(map[string]any{"match": map[string]any{"api": "OffsetCommit", "group": "billing"}, "action": map[string]any{"type": "error", "error": "COORDINATOR_NOT_AVAILABLE"}})
	if err != nil {
		t.Fatal(err)
	}
	defer rule.Remove()

	producer, err := kgo.NewClient(kgo.SeedBrokers(kafka.Bootstrap), kgo.DefaultProduceTopic("orders"), kgo.AllowAutoTopicCreation())
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close()
	for i := 0; i < 3; i++ {
		if err := producer.ProduceSync(ctx, &kgo.Record{Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(fmt.Sprintf("v%d", i))}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}

	consumer, err := kgo.NewClient(kgo.SeedBrokers(kafka.Bootstrap), kgo.ConsumeTopics("orders"), kgo.ConsumerGroup("billing"),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.DisableAutoCommit())
	if err != nil {
		t.Fatal(err)
	}
	defer consumer.Close()
	values := pollValues(ctx, t, consumer, 3)
	// franz-go retries the commit that the rule answered COORDINATOR_NOT_AVAILABLE.
	if err := consumer.CommitUncommittedOffsets(ctx); err != nil {
		t.Fatal(err)
	}
	if err := rule.WaitFired(1, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	fired, err := rule.Fired()
	if err != nil {
		t.Fatal(err)
	}
	committed := consumer.CommittedOffsets()["orders"][0].Offset
	fmt.Printf("consumed %s committed %d fired %d\n", strings.Join(values, ","), committed, fired)
	if strings.Join(values, ",") != "v0,v1,v2" || committed != 3 || fired != 1 {
		t.Fatalf("values %v, committed %d, rule fired %d times", values, committed, fired)
	}
}

// A server on a data directory restarted under a live producer: same address, records kept, the
// producer carrying on.
func TestRestartOnDataDir(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	kept, err := mockbroker.Start(serverCommand(), "--data-dir", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer kept.Close()
	before := kept.Bootstrap
	producer, err := kgo.NewClient(kgo.SeedBrokers(kept.Bootstrap), kgo.DefaultProduceTopic("kept"), kgo.AllowAutoTopicCreation())
	if err != nil {
		t.Fatal(err)
	}
	defer producer.Close()
	produce := func(prefix string) {
		for i := 0; i < 3; i++ {
			if err := producer.ProduceSync(ctx, &kgo.Record{Value: []byte(fmt.Sprintf("%s%d", prefix, i))}).FirstErr(); err != nil {
				t.Fatal(err)
			}
		}
	}
	produce("before")
	if err := kept.Restart(); err != nil {
		t.Fatal(err)
	}
	produce("after")
	reader, err := kgo.NewClient(kgo.SeedBrokers(kept.Bootstrap), kgo.ConsumeTopics("kept"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	values := pollValues(ctx, t, reader, 6)
	fmt.Printf("restarted same=%v %s\n", kept.Bootstrap == before, strings.Join(values, ","))
	if kept.Bootstrap != before || strings.Join(values, ",") != "before0,before1,before2,after0,after1,after2" {
		t.Fatalf("bootstrap %s then %s, values %v", before, kept.Bootstrap, values)
	}
}

// pollValues polls until n records' values have come (the test fails on a fetch error or at ctx's end).
func pollValues(ctx context.Context, t *testing.T, c *kgo.Client, n int) []string {
	var values []string
	for len(values) < n {
		fetches := c.PollFetches(ctx)
		if err := fetches.Err(); err != nil {
			t.Fatal(err)
		}
		fetches.EachRecord(func(r *kgo.Record) { values = append(values, string(r.Value)) })
	}
	return values
}

// AdvanceClock moves a manual clock; Remove takes a rule away.
func TestManualClockAndRemove(t *testing.T) {
	manual, err := mockbroker.Start(serverCommand(), "--clock", "manual")
	if err != nil {
		t.Fatal(err)
	}
	defer manual.Close()
	var clock struct{ Now int64 }
	if err := manual.Call("GET", "/clock", nil, &clock); err != nil {
		t.Fatal(err)
	}
	now, err := manual.AdvanceClock(time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	rule, err := manual.AddFault(map[string]any{"match": map[string]any{"api": "Metadata"}, "action": map[string]any{"type": "delay", "ms": 1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := rule.Remove(); err != nil {
		t.Fatal(err)
	}
	var rules struct{ Faults []any }
	if err := manual.Call("GET", "/faults", nil, &rules); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("advanced %d rules %d\n", now-clock.Now, len(rules.Faults))
	if now-clock.Now != 60000 || len(rules.Faults) != 0 {
		t.Fatalf("advanced %d ms, %d rules left", now-clock.Now, len(rules.Faults))
	}
}

// With --brokers 3 the ready line gives each broker's port by id.
func TestBrokersMap(t *testing.T) {
	three, err := mockbroker.Start(serverCommand(), "--brokers", "3")
	if err != nil {
		t.Fatal(err)
	}
	defer three.Close()
	fmt.Printf("brokers %d first=%v\n", len(three.Brokers), strings.HasSuffix(three.Bootstrap, fmt.Sprintf(":%d", three.Brokers["1"])))
	if len(three.Brokers) != 3 || three.Brokers["2"] == 0 || three.Brokers["3"] == 0 {
		t.Fatalf("brokers %v", three.Brokers)
	}
}

// Command kmc-franz-go drives franz-go (kgo) against kafka-mock-coordinator for the end-to-end
// test test/e2e/franz-go.test.ts. It prints one JSON object on stdout (the last line); kgo's own
// log lines go to stderr.
//
//	kmc-franz-go -mode produce -bootstrap localhost:9092 -topic t -count 20 -partitions 3 -key-prefix a
//	kmc-franz-go -mode consume -bootstrap localhost:9092 -topic t -group g -protocol consumer -count 20
//	kmc-franz-go -mode etl -bootstrap localhost:9092 -topic in -out out -group g -txn-id tx -count 30 -abort-first
//
// produce: message i goes to partition i % partitions, keyed "<key-prefix>-i", value "value-i".
// consume: joins group g (protocol classic: JoinGroup/SyncGroup; protocol consumer: KIP-848
// ConsumerGroupHeartbeat), polls until it has `count` records (then polls `-linger` longer to catch
// extra deliveries), commits what it polled, reads the committed offsets back with OffsetFetch
// through the same client, and closes (leaving the group).
// etl: consume-transform-produce with a GroupTransactSession (transactional id `-txn-id`, group g,
// read_committed): each poll's records go to `-out` (same partition and key, value "etl:<value>")
// in one transaction that also commits the group's offsets; with -abort-first the first transaction
// is aborted on purpose (the session rewinds to the committed offsets and the records come again).
// It stops once `count` inputs were transformed in committed transactions, and reports them
// (`records`) and the aborted ones (`aborted`).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime/debug"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

type record struct {
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
	Key       string `json:"key"`
	Value     string `json:"value"`
}

type partitionOffset struct {
	Partition int32   `json:"partition"`
	Offset    int64   `json:"offset"`
	Error     *string `json:"error"`
}

type result struct {
	OK         bool              `json:"ok"`
	Stage      string            `json:"stage"`
	Error      string            `json:"error,omitempty"`
	Mode       string            `json:"mode"`
	Protocol   string            `json:"protocol,omitempty"`
	Produced   map[string]int    `json:"produced,omitempty"`
	Records    []record          `json:"records,omitempty"`
	Assigned   [][]int32         `json:"assigned,omitempty"`
	Committed  []partitionOffset `json:"committed,omitempty"`
	ClientView []partitionOffset `json:"clientCommitted,omitempty"`
	Aborted    []record          `json:"aborted,omitempty"`
	Txns       int               `json:"transactions,omitempty"`
	GroupEpoch int32             `json:"memberEpochOrGeneration"`
	MemberID   string            `json:"memberId,omitempty"`
	FranzGo    string            `json:"franzGo"`
}

// franzGoVersion is the franz-go module version this binary was built with (go.mod pins it).
func franzGoVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/twmb/franz-go" {
				return d.Version
			}
		}
	}
	return "unknown"
}

func main() {
	var (
		mode      = flag.String("mode", "consume", "produce | consume | etl")
		bootstrap = flag.String("bootstrap", "", "seed broker HOST:PORT")
		topic     = flag.String("topic", "", "topic")
		group     = flag.String("group", "", "consumer group id (consume)")
		protocol  = flag.String("protocol", "classic", "group protocol: classic | consumer (KIP-848)")
		count     = flag.Int("count", 0, "messages to produce, or to consume before committing")
		parts     = flag.Int("partitions", 3, "produce: message i goes to partition i % partitions")
		keyPrefix = flag.String("key-prefix", "key", "produce: keys are <key-prefix>-i")
		clientID  = flag.String("client-id", "kmc-franz-go", "client.id")
		timeout   = flag.Duration("timeout", 30*time.Second, "time limit for the whole run")
		linger    = flag.Duration("linger", 1500*time.Millisecond, "consume: keep polling this long after `count` records to catch extra deliveries")
		verbose   = flag.Bool("v", false, "kgo debug logging to stderr")
		out       = flag.String("out", "", "etl: the output topic")
		txnID     = flag.String("txn-id", "", "etl: transactional.id")
		abort1    = flag.Bool("abort-first", false, "etl: abort the first transaction on purpose")
	)
	flag.Parse()

	res := &result{Stage: "start", Mode: *mode, FranzGo: franzGoVersion()}
	if *bootstrap == "" || *topic == "" || *count <= 0 {
		fail(res, errors.New("need -bootstrap, -topic and -count > 0"))
	}
	if *protocol != "classic" && *protocol != "consumer" {
		fail(res, fmt.Errorf("-protocol must be classic or consumer, got %q", *protocol))
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()

	logLevel := kgo.LogLevelWarn
	if *verbose {
		logLevel = kgo.LogLevelDebug
	}
	opts := []kgo.Opt{
		kgo.SeedBrokers(*bootstrap),
		kgo.ClientID(*clientID),
		kgo.WithContext(ctx),
		kgo.WithLogger(kgo.BasicLogger(os.Stderr, logLevel, func() string { return time.Now().Format("15:04:05.000 ") })),
		kgo.RetryTimeout(10 * time.Second),
	}
	// KIP-848: franz-go's ServerSideBalancer (1.22.3; its earlier opt-in, a context key, is honoured
	// for one release more: pkg/kgo/consumer_group_848.go).
	if *protocol == "consumer" {
		opts = append(opts, kgo.ServerSideBalancer())
	}

	switch *mode {
	case "produce":
		produce(ctx, res, opts, *topic, *count, *parts, *keyPrefix)
	case "consume":
		if *group == "" {
			fail(res, errors.New("consume needs -group"))
		}
		res.Protocol = *protocol
		consume(ctx, res, opts, *topic, *group, *count, *linger)
	case "etl":
		if *group == "" || *out == "" || *txnID == "" {
			fail(res, errors.New("etl needs -group, -out and -txn-id"))
		}
		res.Protocol = *protocol
		etl(ctx, res, opts, *topic, *out, *group, *txnID, *count, *abort1)
	default:
		fail(res, fmt.Errorf("unknown -mode %q", *mode))
	}
	res.Stage = "done"
	res.OK = true
	emit(res)
}

func produce(ctx context.Context, res *result, opts []kgo.Opt, topic string, count, parts int, keyPrefix string) {
	res.Stage = "produce"
	opts = append(opts,
		kgo.DefaultProduceTopic(topic),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.RequiredAcks(kgo.AllISRAcks()),
		kgo.ProducerLinger(5*time.Millisecond),
	)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		fail(res, err)
	}
	defer cl.Close()
	recs := make([]*kgo.Record, 0, count)
	for i := 0; i < count; i++ {
		recs = append(recs, &kgo.Record{
			Partition: int32(i % parts),
			Key:       []byte(keyPrefix + "-" + strconv.Itoa(i)),
			Value:     []byte("value-" + strconv.Itoa(i)),
		})
	}
	results := cl.ProduceSync(ctx, recs...)
	res.Produced = map[string]int{}
	for _, r := range results {
		if r.Err != nil {
			fail(res, fmt.Errorf("produce partition %d: %w", r.Record.Partition, r.Err))
		}
		res.Produced[strconv.Itoa(int(r.Record.Partition))]++
		res.Records = append(res.Records, toRecord(r.Record))
	}
	sortRecords(res.Records)
}

func consume(ctx context.Context, res *result, opts []kgo.Opt, topic, group string, count int, linger time.Duration) {
	res.Stage = "consume"
	var assignedMu sync.Mutex // the callback runs on kgo's group goroutine
	opts = append(opts,
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(topic),
		kgo.DisableAutoCommit(),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(500*time.Millisecond),
		kgo.SessionTimeout(10*time.Second),
		kgo.HeartbeatInterval(500*time.Millisecond),
		kgo.OnPartitionsAssigned(func(_ context.Context, _ *kgo.Client, assigned map[string][]int32) {
			ps := append([]int32(nil), assigned[topic]...)
			sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
			assignedMu.Lock()
			res.Assigned = append(res.Assigned, ps)
			assignedMu.Unlock()
		}),
	)
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		fail(res, err)
	}
	closed := false
	defer func() {
		if !closed {
			cl.Close()
		}
	}()

	var polled []*kgo.Record
	var lingerUntil time.Time
	for {
		if len(polled) >= count {
			if lingerUntil.IsZero() {
				lingerUntil = time.Now().Add(linger)
			}
			if time.Now().After(lingerUntil) {
				break
			}
		}
		pctx, pcancel := context.WithTimeout(ctx, 250*time.Millisecond)
		fetches := cl.PollFetches(pctx)
		pcancel()
		if ctx.Err() != nil {
			res.Records = toRecords(polled)
			fail(res, fmt.Errorf("consume: got %d of %d records before the time limit", len(polled), count))
		}
		var errs []string
		fetches.EachError(func(t string, p int32, err error) {
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
				return
			}
			errs = append(errs, fmt.Sprintf("%s[%d]: %v", t, p, err))
		})
		if len(errs) > 0 {
			fmt.Fprintf(os.Stderr, "fetch errors: %v\n", errs)
		}
		polled = append(polled, fetches.Records()...)
	}
	res.Records = toRecords(polled)

	res.Stage = "commit"
	if err := cl.CommitUncommittedOffsets(ctx); err != nil {
		fail(res, fmt.Errorf("commit: %w", err))
	}
	for _, ps := range cl.CommittedOffsets() {
		for p, eo := range ps {
			res.ClientView = append(res.ClientView, partitionOffset{Partition: p, Offset: eo.Offset})
		}
	}
	sortOffsets(res.ClientView)
	gm, gen := cl.GroupMetadata()
	res.MemberID, res.GroupEpoch = gm, gen

	// Read the committed offsets back from the coordinator with this client's own OffsetFetch.
	res.Stage = "offset-fetch"
	req := kmsg.NewPtrOffsetFetchRequest()
	req.Group = group
	rt := kmsg.NewOffsetFetchRequestTopic()
	rt.Topic = topic
	for _, r := range res.ClientView {
		rt.Partitions = append(rt.Partitions, r.Partition)
	}
	req.Topics = append(req.Topics, rt)
	shards := cl.RequestSharded(ctx, req)
	for _, shard := range shards {
		if shard.Err != nil {
			fail(res, fmt.Errorf("offset fetch: %w", shard.Err))
		}
		resp := shard.Resp.(*kmsg.OffsetFetchResponse)
		if err := kerrOf(resp.ErrorCode); err != nil {
			fail(res, fmt.Errorf("offset fetch: %w", err))
		}
		for _, g := range resp.Groups {
			if err := kerrOf(g.ErrorCode); err != nil {
				fail(res, fmt.Errorf("offset fetch group %s: %w", g.Group, err))
			}
			for _, t := range g.Topics {
				for _, p := range t.Partitions {
					res.Committed = append(res.Committed, partitionOffset{Partition: p.Partition, Offset: p.Offset, Error: errString(kerrOf(p.ErrorCode))})
				}
			}
		}
		if len(resp.Groups) > 0 {
			continue // v8+: kgo also mirrors a single group's answer into the top-level fields
		}
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				res.Committed = append(res.Committed, partitionOffset{Partition: p.Partition, Offset: p.Offset, Error: errString(kerrOf(p.ErrorCode))})
			}
		}
	}
	sortOffsets(res.Committed)

	res.Stage = "close"
	cl.Close() // leaves the group (LeaveGroup, or a ConsumerGroupHeartbeat with member epoch -1)
	closed = true
}

func etl(ctx context.Context, res *result, opts []kgo.Opt, in, out, group, txnID string, count int, abortFirst bool) {
	res.Stage = "etl"
	opts = append(opts,
		kgo.TransactionalID(txnID),
		kgo.TransactionTimeout(60*time.Second),
		kgo.ConsumerGroup(group),
		kgo.ConsumeTopics(in),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()),
		kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchCompression(kgo.NoCompression()), // the test reads the output with kafkajs, which has no snappy
		kgo.FetchMaxWait(500*time.Millisecond),
		kgo.SessionTimeout(10*time.Second),
		kgo.HeartbeatInterval(500*time.Millisecond),
	)
	sess, err := kgo.NewGroupTransactSession(opts...)
	if err != nil {
		fail(res, err)
	}
	defer sess.Close()

	var committed, aborted []*kgo.Record
	for len(committed) < count {
		pctx, pcancel := context.WithTimeout(ctx, 250*time.Millisecond)
		fetches := sess.PollFetches(pctx)
		pcancel()
		if ctx.Err() != nil {
			res.Records, res.Aborted = toRecords(committed), toRecords(aborted)
			fail(res, fmt.Errorf("etl: %d of %d records transformed before the time limit", len(committed), count))
		}
		recs := fetches.Records()
		if len(recs) == 0 {
			continue
		}
		if err := sess.Begin(); err != nil {
			fail(res, fmt.Errorf("begin: %w", err))
		}
		var produceMu sync.Mutex
		var produceErrs []error
		for _, r := range recs {
			outRec := &kgo.Record{Topic: out, Partition: r.Partition, Key: r.Key, Value: append([]byte("etl:"), r.Value...)}
			sess.Produce(ctx, outRec, func(_ *kgo.Record, err error) {
				if err != nil && !errors.Is(err, kgo.ErrAborting) {
					produceMu.Lock()
					produceErrs = append(produceErrs, err)
					produceMu.Unlock()
				}
			})
		}
		// Flushed first, so that an aborted transaction's records are in the log too (End would
		// otherwise drop the ones still buffered).
		if err := sess.Client().Flush(ctx); err != nil {
			fail(res, fmt.Errorf("flush: %w", err))
		}
		wantCommit := !(abortFirst && res.Txns == 0)
		ok, err := sess.End(ctx, kgo.TransactionEndTry(wantCommit))
		res.Txns++
		if err != nil {
			fail(res, fmt.Errorf("end transaction %d: %w", res.Txns, err))
		}
		produceMu.Lock()
		if len(produceErrs) > 0 {
			fail(res, fmt.Errorf("transactional produce: %v", produceErrs))
		}
		produceMu.Unlock()
		if ok {
			committed = append(committed, recs...)
		} else {
			aborted = append(aborted, recs...)
		}
	}
	res.Records, res.Aborted = toRecords(committed), toRecords(aborted)
	res.Stage = "close"
}

func kerrOf(code int16) error {
	return kerr.ErrorForCode(code)
}

func errString(err error) *string {
	if err == nil {
		return nil
	}
	s := err.Error()
	return &s
}

func toRecord(r *kgo.Record) record {
	return record{Partition: r.Partition, Offset: r.Offset, Key: string(r.Key), Value: string(r.Value)}
}

func toRecords(rs []*kgo.Record) []record {
	out := make([]record, 0, len(rs))
	for _, r := range rs {
		out = append(out, toRecord(r))
	}
	sortRecords(out)
	return out
}

func sortRecords(rs []record) {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Partition != rs[j].Partition {
			return rs[i].Partition < rs[j].Partition
		}
		return rs[i].Offset < rs[j].Offset
	})
}

func sortOffsets(os []partitionOffset) {
	sort.Slice(os, func(i, j int) bool { return os[i].Partition < os[j].Partition })
}

func emit(res *result) {
	b, err := json.Marshal(res)
	if err != nil {
		fmt.Fprintf(os.Stderr, "marshal: %v\n", err)
		os.Exit(3)
	}
	fmt.Println(string(b))
}

func fail(res *result, err error) {
	res.OK = false
	res.Error = err.Error()
	emit(res)
	os.Exit(1)
}

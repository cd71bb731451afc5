package kmc;

import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.Stores;

/**
 * A Kafka Streams word count: lines of the input topic are split into words, re-keyed by word (a
 * repartition topic) and counted in a store (whose changelog topic is what a restarted instance
 * restores it from); every new count goes to the output topic. Args: bootstrap input output
 * stateDir [key=value ...]: each key=value is a Streams setting (`processing.guarantee=exactly_once_v2`,
 * `producer.transaction.timeout.ms=60000`; at-least-once by default), but for two of ours:
 * `kmc.store=persistent` counts in RocksDB instead of memory (Streams then keeps its process id, and
 * so its transactional ids, in the state directory), and `kmc.crash.word=W` makes counting W stop the
 * stream thread for good after the word's changelog record is sent and before its output record is
 * (the test then kills the JVM: a crash in the middle of a transaction). Prints
 * {"event":"state",...} on every state change, {"event":"crashing","word":...} when it stops so, and
 * {"event":"closed"} after a clean close, which starts when stdin closes.
 */
public final class WordCount {
  public static void main(String[] args) throws IOException {
    String bootstrap = args[0], input = args[1], output = args[2], stateDir = args[3];
    Properties p = new Properties();
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, "kmc-wordcount");
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
    p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
    p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
    p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
    p.put(StreamsConfig.REPARTITION_PURGE_INTERVAL_MS_CONFIG, 100);
    p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
    p.put(StreamsConfig.consumerPrefix("session.timeout.ms"), 10_000);
    p.put(StreamsConfig.consumerPrefix("heartbeat.interval.ms"), 500);
    for (int i = 4; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      p.put(args[i].substring(0, eq), args[i].substring(eq + 1));
    }
    String crashWord = (String) p.remove("kmc.crash.word");
    boolean persistent = "persistent".equals(p.remove("kmc.store"));
    KeyValueBytesStoreSupplier store = persistent ? Stores.persistentKeyValueStore("counts") : Stores.inMemoryKeyValueStore("counts");

    StreamsBuilder builder = new StreamsBuilder();
    builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
        .flatMapValues(line -> Arrays.asList(line.toLowerCase().split("\\W+")))
        .filter((key, word) -> !word.isEmpty())
        .groupBy((key, word) -> word, Grouped.with(Serdes.String(), Serdes.String()))
        .count(Materialized.<String, Long>as(store).withKeySerde(Serdes.String()).withValueSerde(Serdes.Long()))
        .toStream()
        .peek((word, count) -> {
          if (word.equals(crashWord)) stall(word);
        })
        .to(output, Produced.with(Serdes.String(), Serdes.Long()));

    KafkaStreams streams = new KafkaStreams(builder.build(), p);
    streams.setStateListener((now, before) -> Common.emit("state", Map.of("state", now.name(), "before", before.name())));
    streams.start();
    // Runs until the test closes stdin.
    while (System.in.read() != -1) {
      // nothing to read: stdin only says when to stop
    }
    streams.close(Duration.ofSeconds(30));
    Common.emit("closed", Map.of());
  }

  /** Blocks the stream thread until the JVM is killed: its open transaction stays open. */
  private static void stall(String word) {
    Common.emit("crashing", Map.of("word", word));
    while (true) {
      try {
        Thread.sleep(Long.MAX_VALUE);
      } catch (InterruptedException e) {
        // keep stalling: only SIGKILL ends this
      }
    }
  }
}

package kmc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Shared setup for the test programs: topics, producing, consumer properties, printing results. */
public final class Common {
  private Common() {}

  /** One result line on stdout: {"event": ..., ...}. The vitest side parses lines starting with '{'. */
  public static void emit(String event, Map<String, Object> fields) {
    Map<String, Object> line = new java.util.LinkedHashMap<>();
    line.put("event", event);
    line.putAll(fields);
    System.out.println(Json.of(line));
    System.out.flush();
  }

  private static Properties extra;

  /**
   * Client settings every program applies on top of its own (security: security.protocol, sasl.*,
   * ssl.*), read from the properties file named by -Dkmc.client.props; none without it.
   */
  public static synchronized Properties extra() {
    if (extra == null) {
      extra = new Properties();
      String file = System.getProperty("kmc.client.props");
      if (file != null) {
        try (java.io.Reader r = new java.io.FileReader(file, java.nio.charset.StandardCharsets.UTF_8)) {
          extra.load(r);
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }
    }
    return extra;
  }

  public static Admin admin(String bootstrap, String clientId) {
    Properties p = new Properties();
    p.putAll(extra());
    p.put("bootstrap.servers", bootstrap);
    p.put("client.id", clientId);
    // Backstops for a hang, not speed limits: at load 40 on 2 cores a mutual-TLS admin took over 30 s to reach a node.
    p.put("request.timeout.ms", "30000");
    p.put("default.api.timeout.ms", "120000");
    return Admin.create(p);
  }

  public static void createTopic(Admin admin, String topic, int partitions) throws Exception {
    try {
      admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1))).all().get();
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) throw e;
    }
  }

  /** Produces `count` messages, message i to partition i % partitions, key "k<i>", value "v<i>"; waits for every ack. */
  public static void produce(String bootstrap, String clientId, String topic, int partitions, int count) throws Exception {
    Properties p = new Properties();
    p.putAll(extra());
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      List<java.util.concurrent.Future<?>> acks = new ArrayList<>();
      for (int i = 0; i < count; i++) acks.add(producer.send(new ProducerRecord<>(topic, i % partitions, "k" + i, "v" + i)));
      for (java.util.concurrent.Future<?> f : acks) f.get();
      producer.flush();
    }
  }

  public static Properties consumerProps(String bootstrap, String clientId, String group, String protocol) {
    Properties p = new Properties();
    p.putAll(extra());
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    if (protocol.equals("classic")) {
      p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
      p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
    }
    return p;
  }

  /** Polls until `consumer` has an assignment and then until `want` records arrived (or the deadline). */
  public static List<ConsumerRecord<String, String>> pollUntil(KafkaConsumer<String, String> consumer, int want, long timeoutMs) {
    List<ConsumerRecord<String, String>> got = new ArrayList<>();
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (got.size() < want && System.currentTimeMillis() < deadline) {
      ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
      for (ConsumerRecord<String, String> r : records) got.add(r);
    }
    return got;
  }

  /** Polls until the first non-empty batch (or the deadline). */
  public static ConsumerRecords<String, String> pollOnce(KafkaConsumer<String, String> consumer, long timeoutMs) {
    long deadline = System.currentTimeMillis() + timeoutMs;
    while (System.currentTimeMillis() < deadline) {
      ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
      if (!records.isEmpty()) return records;
    }
    return ConsumerRecords.empty();
  }

  public static Set<TopicPartition> partitions(String topic, int count) {
    Set<TopicPartition> out = new java.util.LinkedHashSet<>();
    for (int p = 0; p < count; p++) out.add(new TopicPartition(topic, p));
    return out;
  }

  /** committed() per partition as {partition: offset}, -1 where nothing is committed. */
  public static Map<String, Object> committed(KafkaConsumer<String, String> consumer, Set<TopicPartition> tps) {
    Map<TopicPartition, OffsetAndMetadata> c = consumer.committed(tps, Duration.ofSeconds(15));
    Map<String, Object> out = new TreeMap<>();
    for (TopicPartition tp : tps) {
      OffsetAndMetadata om = c.get(tp);
      out.put(String.valueOf(tp.partition()), om == null ? -1L : om.offset());
    }
    return out;
  }

  /** position() per assigned partition as {partition: offset}. */
  public static Map<String, Object> positions(KafkaConsumer<String, String> consumer, Set<TopicPartition> tps) {
    Map<String, Object> out = new TreeMap<>();
    for (TopicPartition tp : tps) {
      if (consumer.assignment().contains(tp)) out.put(String.valueOf(tp.partition()), consumer.position(tp, Duration.ofSeconds(15)));
    }
    return out;
  }

  /** Records per partition as {partition: [offsets...]}. */
  public static Map<String, Object> offsetsByPartition(List<ConsumerRecord<String, String>> records) {
    Map<String, Object> out = new TreeMap<>();
    for (ConsumerRecord<String, String> r : records) {
      @SuppressWarnings("unchecked")
      List<Object> list = (List<Object>) out.computeIfAbsent(String.valueOf(r.partition()), k -> new ArrayList<>());
      list.add(r.offset());
    }
    return out;
  }

  /**
   * Every value of partitions 0..partitions-1 of `topic`, from the beginning up to the end offset the
   * isolation level sees (read_committed: the last stable offset), partition by partition as polled.
   */
  public static List<String> readToEnd(String bootstrap, String topic, int partitions, String isolation) {
    Properties p = new Properties();
    p.putAll(extra());
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "kmc-reader-" + isolation);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
      List<TopicPartition> tps = new ArrayList<>(partitions(topic, partitions));
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> ends = consumer.endOffsets(tps);
      long deadline = System.currentTimeMillis() + 60_000;
      while (tps.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp)) && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) values.add(r.value());
      }
    }
    return values;
  }

}

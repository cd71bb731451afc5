package kmc;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The README's JVM recipe, run as a test would: {@link MockBroker} starts the server
 * ({@code node <cli>}), the clients use its bootstrap address, a fault rule added through its admin
 * API fails the first OffsetCommit (the consumer's commitSync retries it), and close stops it; then
 * a server on a data directory restarted ({@link MockBroker#restart}) under a live producer.
 * Args: path to the server's cli.cjs.
 */
public final class MockBrokerRecipe {
  public static void main(String[] args) throws Exception {
    String cli = args[0], topic = "recipe-topic";
    try (MockBroker broker = new MockBroker("node", cli)) {
      Common.emit("started", Map.of("bootstrap", broker.bootstrap, "admin", broker.admin));
      try (Admin admin = Common.admin(broker.bootstrap, "recipe-admin")) {
        Common.createTopic(admin, topic, 1);
      }
      Common.produce(broker.bootstrap, "recipe-producer", topic, 1, 3);

      String rule = "{\"match\":{\"api\":\"OffsetCommit\",\"group\":\"recipe-group\"},\"action\":{\"type\":\"error\",\"error\":\"COORDINATOR_NOT_AVAILABLE\"}}";
      Map<String, Object> result = new LinkedHashMap<>();
      try (MockBroker.Fault fault = broker.fault(rule)) {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Common.consumerProps(broker.bootstrap, "recipe-consumer", "recipe-group", "consumer"))) {
          consumer.subscribe(List.of(topic));
          List<ConsumerRecord<String, String>> records = Common.pollUntil(consumer, 3, 60_000);
          consumer.commitSync();
          result.put("consumed", records.size());
          result.put("committed", Common.committed(consumer, Set.of(new TopicPartition(topic, 0))));
        }
        fault.waitFired(1, 10_000);
        result.put("ruleFired", fault.fired());
      }
      // Closing the Fault removed the rule.
      result.put("rulesLeft", broker.call("GET", "/faults", null).contains("\"id\""));
      Common.emit("consumed", result);
      // The server's log after its ready line: the topic created above is in it.
      Common.emit("log", Map.of("createdTopic", broker.recentLog().stream().anyMatch(l -> l.contains("\"msg\":\"created topic\"") && l.contains("\"topic\":\"" + topic + "\""))));
    }
    // close() waited for the server: no child of this JVM is left.
    Common.emit("closed", Map.of("childrenLeft", ProcessHandle.current().children().count()));
    restartOnDataDir(cli);
    try (MockBroker manual = new MockBroker(List.of("node", cli), "--clock", "manual")) {
      long before = Long.parseLong(manual.call("GET", "/clock", null).replaceAll(".*\"now\":(\\d+).*", "$1"));
      Common.emit("manual", Map.of("advanced", manual.advanceClock(60_000) - before));
    }
    try (MockBroker three = new MockBroker(List.of("node", cli), "--brokers", "3")) {
      String host = three.bootstrap.substring(0, three.bootstrap.lastIndexOf(':'));
      Common.emit("brokers", Map.of(
          "ids", List.copyOf(three.brokers.keySet()),
          "firstIsBootstrap", three.bootstrap.endsWith(":" + three.brokers.get(1)),
          "bootstrapServers", three.bootstrapServers().equals(host + ":" + three.brokers.get(1) + "," + host + ":" + three.brokers.get(2) + "," + host + ":" + three.brokers.get(3))));
    }
  }

  /**
   * A server on a data directory restarted under a live producer and a committed group: it comes
   * back on the same bootstrap address with its records and offsets, and the producer carries on.
   */
  private static void restartOnDataDir(String cli) throws Exception {
    Path dir = Files.createTempDirectory("kmc-recipe-");
    String topic = "kept";
    TopicPartition tp = new TopicPartition(topic, 0);
    try (MockBroker broker = new MockBroker(List.of("node", cli), "--data-dir", dir.toString())) {
      String before = broker.bootstrap;
      String ruleIds;
      try (Admin admin = Common.admin(broker.bootstrap, "recipe-admin")) {
        Common.createTopic(admin, topic, 1);
      }
      Properties p = new Properties();
      p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap);
      p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
      try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
        for (int i = 0; i < 3; i++) producer.send(new ProducerRecord<>(topic, 0, null, "before" + i)).get();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Common.consumerProps(broker.bootstrap, "recipe-consumer", "kept-group", "consumer"))) {
          consumer.subscribe(List.of(topic));
          Common.pollUntil(consumer, 3, 60_000);
          consumer.commitSync();
        }
        MockBroker.Fault oldRule = broker.fault("{\"match\":{\"api\":\"Heartbeat\"},\"action\":{\"type\":\"delay\",\"ms\":1}}");
        broker.restart();
        for (int i = 0; i < 3; i++) producer.send(new ProducerRecord<>(topic, 0, null, "after" + i)).get();
        // The restarted server numbers its rules from f1 again: the old handle leaves the new rule alone.
        MockBroker.Fault newRule = broker.fault("{\"match\":{\"api\":\"Heartbeat\"},\"action\":{\"type\":\"delay\",\"ms\":1}}");
        ruleIds = oldRule.id + " " + newRule.id;
        oldRule.close();
        try {
          oldRule.fired();
        } catch (IllegalStateException e) {
          ruleIds += " ended";
        }
        ruleIds += broker.call("GET", "/faults", null).contains("\"id\":\"" + newRule.id + "\"") ? " kept" : " deleted";
      }
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("rules", ruleIds);
      result.put("sameBootstrap", before.equals(broker.bootstrap));
      result.put("values", Common.readToEnd(broker.bootstrap, topic, 1, "read_uncommitted"));
      try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Common.consumerProps(broker.bootstrap, "recipe-consumer", "kept-group", "consumer"))) {
        result.put("committed", Common.committed(consumer, Set.of(tp)));
      }
      Common.emit("restarted", result);
    } finally {
      try (var files = Files.walk(dir)) {
        files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }
}

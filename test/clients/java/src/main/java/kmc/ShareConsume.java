package kmc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * KafkaShareConsumer (KIP-932) programs. Args: bootstrap topic group mode [arg], mode one of
 * - setup PARTITIONS:COUNT: create the topic and produce COUNT records (values v0..), round robin;
 * - two WANT: two share consumers (implicit acknowledgement) in two threads poll until together
 *   they have WANT records, then close; prints each consumer's records ("partition:offset");
 * - explicit WANT: explicit acknowledgement: the first delivery of "v3" is RELEASEd, "v5" REJECTed,
 *   the rest ACCEPTed (commitSync after each poll) until WANT records are accepted or rejected;
 *   prints every delivery (value and delivery count);
 * - poison WANT: explicit acknowledgement, every delivery RELEASEd, until WANT deliveries were seen;
 * - hold: explicit acknowledgement: polls until it gets records, prints them ("held") and then holds
 *   them without acknowledging, never polling again, until the JVM is killed;
 * - redeliver WANT: explicit acknowledgement: ACCEPTs every delivery (commitSync after each poll)
 *   until WANT records were accepted; prints every delivery.
 * Deliveries print as value#deliveryCount.
 */
public final class ShareConsume {
  static KafkaShareConsumer<String, String> consumer(String bootstrap, String clientId, String group, boolean explicit) {
    Properties p = new Properties();
    p.putAll(Common.extra());
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
    p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put("share.acknowledgement.mode", explicit ? "explicit" : "implicit");
    return new KafkaShareConsumer<>(p);
  }

  static String deliveryOf(ConsumerRecord<String, String> r) {
    return r.value() + "#" + r.deliveryCount().map(String::valueOf).orElse("?");
  }

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], topic = args[1], group = args[2], mode = args[3];
    long deadline = System.currentTimeMillis() + 90_000;
    switch (mode) {
      case "setup": {
        String[] pc = args[4].split(":");
        int partitions = Integer.parseInt(pc[0]), count = Integer.parseInt(pc[1]);
        try (Admin admin = Common.admin(bootstrap, "java-admin-share")) {
          Common.createTopic(admin, topic, partitions);
        }
        Common.produce(bootstrap, "java-producer-share", topic, partitions, count);
        Common.emit("setup", Map.of("produced", count));
        return;
      }
      case "two": {
        int want = Integer.parseInt(args[4]);
        AtomicInteger total = new AtomicInteger();
        List<List<String>> seen = List.of(new ArrayList<>(), new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        List<Throwable> errors = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
          final int n = i;
          Thread t = new Thread(() -> {
            try (KafkaShareConsumer<String, String> c = consumer(bootstrap, "java-share-" + n, group, false)) {
              c.subscribe(List.of(topic));
              while (total.get() < want && System.currentTimeMillis() < deadline) {
                ConsumerRecords<String, String> records = c.poll(Duration.ofMillis(200));
                for (ConsumerRecord<String, String> r : records) {
                  synchronized (seen) {
                    seen.get(n).add(r.partition() + ":" + r.offset());
                  }
                  total.incrementAndGet();
                }
              }
              c.commitSync();
            } catch (Throwable e) {
              synchronized (errors) {
                errors.add(e);
              }
            }
          });
          threads.add(t);
          t.start();
        }
        for (Thread t : threads) t.join();
        if (!errors.isEmpty()) throw new RuntimeException(errors.get(0));
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("first", seen.get(0));
        line.put("second", seen.get(1));
        Common.emit("two", line);
        return;
      }
      case "explicit":
      case "poison": {
        int want = Integer.parseInt(args[4]);
        boolean poison = mode.equals("poison");
        List<String> deliveries = new ArrayList<>();
        int settled = 0;
        try (KafkaShareConsumer<String, String> c = consumer(bootstrap, "java-share-" + mode, group, true)) {
          c.subscribe(List.of(topic));
          while ((poison ? deliveries.size() : settled) < want && System.currentTimeMillis() < deadline) {
            ConsumerRecords<String, String> records = c.poll(Duration.ofMillis(200));
            for (ConsumerRecord<String, String> r : records) {
              deliveries.add(deliveryOf(r));
              AcknowledgeType type = AcknowledgeType.ACCEPT;
              if (poison || (r.value().equals("v3") && r.deliveryCount().orElse((short) 0) == 1)) type = AcknowledgeType.RELEASE;
              else if (r.value().equals("v5")) type = AcknowledgeType.REJECT;
              if (type != AcknowledgeType.RELEASE) settled++;
              c.acknowledge(r, type);
            }
            if (!records.isEmpty()) c.commitSync();
          }
        }
        Common.emit(mode, Map.of("deliveries", deliveries, "settled", settled));
        return;
      }
      case "hold": {
        KafkaShareConsumer<String, String> c = consumer(bootstrap, "java-share-hold", group, true);
        c.subscribe(List.of(topic));
        Common.emit("held", Map.of("deliveries", pollUntilSome(c, deadline)));
        // Holding the acquisition locks: no acknowledgement, no poll, no close, until killed.
        Thread.sleep(Long.MAX_VALUE);
        return;
      }
      case "redeliver": {
        int want = Integer.parseInt(args[4]);
        try (KafkaShareConsumer<String, String> c = consumer(bootstrap, "java-share-redeliver", group, true)) {
          c.subscribe(List.of(topic));
          Common.emit("redelivered", Map.of("deliveries", acceptUntil(c, want, deadline)));
        }
        return;
      }
      default:
        throw new IllegalArgumentException("unknown mode " + mode);
    }
  }

  /** Polls until a poll returns records; acknowledges none of them. */
  static List<String> pollUntilSome(KafkaShareConsumer<String, String> c, long deadline) {
    List<String> deliveries = new ArrayList<>();
    while (deliveries.isEmpty() && System.currentTimeMillis() < deadline) {
      for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) deliveries.add(deliveryOf(r));
    }
    return deliveries;
  }

  /** ACCEPTs every delivery (commitSync after each poll) until `want` records were accepted. */
  static List<String> acceptUntil(KafkaShareConsumer<String, String> c, int want, long deadline) {
    List<String> deliveries = new ArrayList<>();
    while (deliveries.size() < want && System.currentTimeMillis() < deadline) {
      ConsumerRecords<String, String> records = c.poll(Duration.ofMillis(200));
      for (ConsumerRecord<String, String> r : records) {
        deliveries.add(deliveryOf(r));
        c.acknowledge(r, AcknowledgeType.ACCEPT);
      }
      if (!records.isEmpty()) c.commitSync();
    }
    return deliveries;
  }
}

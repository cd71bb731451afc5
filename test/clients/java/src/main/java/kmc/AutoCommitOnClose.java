package kmc;

import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Auto-commit on close. Args: bootstrap topic group protocol mode, mode one of
 * - setup: create the 1-partition topic and produce 40 messages;
 * - auto: enable.auto.commit=true, auto.commit.interval.ms=60000, max.poll.records=20: poll, process 5, close();
 * - manual: enable.auto.commit=false: poll, process 5, commitSync(5), close();
 * - halt: as auto, then print "polled" and wait to be killed (SIGKILL) without closing;
 * - committed: print the group's committed offset of partition 0 via Admin.listConsumerGroupOffsets.
 */
public final class AutoCommitOnClose {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], topic = args[1], group = args[2], protocol = args[3], mode = args[4];
    TopicPartition tp = new TopicPartition(topic, 0);
    if (mode.equals("setup")) {
      try (Admin admin = Common.admin(bootstrap, "java-admin-autocommit")) {
        Common.createTopic(admin, topic, 1);
      }
      Common.produce(bootstrap, "java-producer-autocommit", topic, 1, 40);
      Common.emit("setup", Map.of("produced", 40));
      return;
    }
    if (mode.equals("committed")) {
      try (Admin admin = Common.admin(bootstrap, "java-admin-autocommit")) {
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
        OffsetAndMetadata om = offsets.get(tp);
        Common.emit("committed", Map.of("group", group, "offset", om == null ? -1L : om.offset()));
      }
      return;
    }
    java.util.Properties props = Common.consumerProps(bootstrap, "java-consumer-" + mode, group, protocol);
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "20");
    boolean auto = !mode.equals("manual");
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, String.valueOf(auto));
    props.put(ConsumerConfig.AUTO_COMMIT_INTERVAL_MS_CONFIG, "60000");
    KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props);
    consumer.subscribe(List.of(topic));
    ConsumerRecords<String, String> records = Common.pollOnce(consumer, 60_000);
    Iterator<ConsumerRecord<String, String>> it = records.iterator();
    long lastProcessed = -1;
    for (int i = 0; i < 5 && it.hasNext(); i++) lastProcessed = it.next().offset();
    Map<String, Object> line = new LinkedHashMap<>();
    line.put("mode", mode);
    line.put("polled", records.count());
    line.put("processedThrough", lastProcessed);
    line.put("position", consumer.position(tp));
    if (mode.equals("manual")) consumer.commitSync(Map.of(tp, new OffsetAndMetadata(lastProcessed + 1)));
    if (mode.equals("halt")) {
      Common.emit("polled", line);
      Thread.sleep(Long.MAX_VALUE);
    }
    consumer.close();
    Common.emit("closed", line);
  }
}

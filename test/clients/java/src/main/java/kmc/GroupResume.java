package kmc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * Produce, consume in a group, commitSync, restart the consumer and resume at the committed offsets.
 * Args: bootstrap topic group protocol(classic|consumer). 3 partitions, 30 messages (10 each).
 * The first consumer takes at least 12 records, commits what it was given and closes; the second
 * consumer (same group) reads the rest, commits and reports committed()/position().
 */
public final class GroupResume {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], topic = args[1], group = args[2], protocol = args[3];
    int partitions = 3, count = 30;
    try (Admin admin = Common.admin(bootstrap, "java-admin-" + protocol)) {
      Common.createTopic(admin, topic, partitions);
    }
    Common.produce(bootstrap, "java-producer-" + protocol, topic, partitions, count);
    Set<TopicPartition> tps = Common.partitions(topic, partitions);

    Map<String, Object> first = new LinkedHashMap<>();
    List<ConsumerRecord<String, String>> firstRecords;
    java.util.Properties props = Common.consumerProps(bootstrap, "java-consumer-" + protocol + "-1", group, protocol);
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "4");
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
      consumer.subscribe(List.of(topic));
      firstRecords = Common.pollUntil(consumer, 12, 60_000);
      consumer.commitSync();
      first.put("count", firstRecords.size());
      first.put("records", Common.offsetsByPartition(firstRecords));
      first.put("assignment", consumer.assignment().stream().map(TopicPartition::partition).sorted().toList());
      first.put("position", Common.positions(consumer, tps));
      first.put("committed", Common.committed(consumer, tps));
    }
    Common.emit("first", first);

    Map<String, Object> second = new LinkedHashMap<>();
    props = Common.consumerProps(bootstrap, "java-consumer-" + protocol + "-2", group, protocol);
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
      consumer.subscribe(List.of(topic));
      List<ConsumerRecord<String, String>> rest = Common.pollUntil(consumer, count - firstRecords.size(), 60_000);
      consumer.commitSync();
      second.put("count", rest.size());
      second.put("records", Common.offsetsByPartition(rest));
      second.put("position", Common.positions(consumer, tps));
      second.put("committed", Common.committed(consumer, tps));
      List<Object> values = new ArrayList<>();
      for (ConsumerRecord<String, String> r : rest) values.add(r.value());
      second.put("valuesSample", values.subList(0, Math.min(3, values.size())));
    }
    Common.emit("second", second);
  }
}

package kmc;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

/**
 * The seeds' experiment: 30 messages over 3 partitions, max.poll.records=5; position vs committed
 * after two polls, after a commitSync, and after a third poll.
 * Args: bootstrap topic group protocol.
 */
public final class PositionVsCommitted {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], topic = args[1], group = args[2], protocol = args[3];
    int partitions = 3;
    try (Admin admin = Common.admin(bootstrap, "java-admin-seeds")) {
      Common.createTopic(admin, topic, partitions);
    }
    Common.produce(bootstrap, "java-producer-seeds", topic, partitions, 30);
    Set<TopicPartition> tps = Common.partitions(topic, partitions);
    java.util.Properties props = Common.consumerProps(bootstrap, "java-consumer-seeds", group, protocol);
    props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5");
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
      consumer.subscribe(List.of(topic));
      for (int poll = 1; poll <= 3; poll++) {
        ConsumerRecords<String, String> records = Common.pollOnce(consumer, 60_000);
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("poll", poll);
        line.put("count", records.count());
        line.put("records", Common.offsetsByPartition(List.copyOf(iterable(records))));
        line.put("position", Common.positions(consumer, tps));
        line.put("committed", Common.committed(consumer, tps));
        Common.emit("poll", line);
        if (poll == 2) {
          consumer.commitSync();
          Map<String, Object> commit = new LinkedHashMap<>();
          commit.put("position", Common.positions(consumer, tps));
          commit.put("committed", Common.committed(consumer, tps));
          Common.emit("commit", commit);
        }
      }
    }
  }

  private static <T> List<T> iterable(Iterable<T> it) {
    List<T> out = new java.util.ArrayList<>();
    it.forEach(out::add);
    return out;
  }
}

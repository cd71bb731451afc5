package kmc;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.SubscriptionPattern;

/**
 * A KIP-848 consumer subscribed with a broker-side regular expression (`SubscriptionPattern`,
 * RE2 syntax, resolved by the coordinator). The client learns the assigned topics by id, so this
 * also exercises Metadata requests by topic id.
 * Args: bootstrap prefix group. Topics prefix-a (2 partitions), prefix-b (1) and other-prefix (1),
 * 4 messages each; the pattern `prefix-.*` must bring the 8 messages of prefix-a and prefix-b.
 */
public final class RegexSubscribe {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], prefix = args[1], group = args[2];
    String a = prefix + "-a", b = prefix + "-b", other = "other-" + prefix;
    try (Admin admin = Common.admin(bootstrap, "java-admin-regex")) {
      Common.createTopic(admin, a, 2);
      Common.createTopic(admin, b, 1);
      Common.createTopic(admin, other, 1);
    }
    Common.produce(bootstrap, "java-producer-regex", a, 2, 4);
    Common.produce(bootstrap, "java-producer-regex", b, 1, 4);
    Common.produce(bootstrap, "java-producer-regex", other, 1, 4);

    Map<String, Object> out = new LinkedHashMap<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Common.consumerProps(bootstrap, "java-consumer-regex", group, "consumer"))) {
      consumer.subscribe(new SubscriptionPattern(prefix + "-.*"));
      List<ConsumerRecord<String, String>> records = Common.pollUntil(consumer, 8, 60_000);
      consumer.commitSync();
      Map<String, Integer> perTopicPartition = new TreeMap<>();
      for (ConsumerRecord<String, String> r : records) perTopicPartition.merge(r.topic() + ":" + r.partition(), 1, Integer::sum);
      TreeSet<String> assignment = new TreeSet<>();
      consumer.assignment().forEach(tp -> assignment.add(tp.topic() + ":" + tp.partition()));
      out.put("count", records.size());
      out.put("records", perTopicPartition);
      out.put("assignment", List.copyOf(assignment));
    }
    Common.emit("regex", out);
  }
}

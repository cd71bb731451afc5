package kmc;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * A transactional producer committing `count` transactions one after the other, for the fault
 * tests: transaction i sends "t{i}-0" .. "t{i}-2" to partition 0 of the topic and the offset i + 1
 * of partition 0 with sendOffsetsToTransaction for the group, then commits. Prints
 * {"event":"committed","transaction":i} after each commit, then {"event":"read",...} with what a
 * read_committed consumer reads and the group's committed offset, or {"event":"failed","error":...}
 * when a call throws. Args: bootstrap topic group transactionalId count.
 */
public final class TxnCommits {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], topic = args[1], group = args[2], txnId = args[3];
    int count = Integer.parseInt(args[4]);
    try (Admin admin = Common.admin(bootstrap, "java-txn-admin")) {
      Common.createTopic(admin, topic, 1);
    }
    TopicPartition tp = new TopicPartition(topic, 0);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(Transactions.producerProps(bootstrap, txnId))) {
      producer.initTransactions();
      for (int i = 0; i < count; i++) {
        producer.beginTransaction();
        for (int j = 0; j < 3; j++) producer.send(new ProducerRecord<>(topic, 0, null, "t" + i + "-" + j));
        producer.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(i + 1)), new ConsumerGroupMetadata(group));
        producer.commitTransaction();
        Common.emit("committed", Map.of("transaction", i));
      }
    } catch (Exception e) {
      Common.emit("failed", Map.of("error", e.getClass().getSimpleName() + ": " + e.getMessage()));
      return;
    }
    Map<String, Object> read = new LinkedHashMap<>();
    read.put("readCommitted", Transactions.readAll(bootstrap, topic, "read_committed"));
    try (Admin admin = Common.admin(bootstrap, "java-txn-admin")) {
      OffsetAndMetadata committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().get(tp);
      read.put("committed", committed == null ? -1 : committed.offset());
    }
    Common.emit("read", read);
  }
}

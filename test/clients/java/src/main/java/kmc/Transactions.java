package kmc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A transactional producer (transaction version 2 when the broker finalizes it): one transaction
 * committed (10 records, offset 10 of the input sent with sendOffsetsToTransaction), one aborted
 * (5 records, offset 15); then what read_committed and read_uncommitted consumers read and the
 * group's committed offset; then a second producer with the same transactional id fences the first.
 * Args: bootstrap outTopic inTopic group transactionalId.
 */
public final class Transactions {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], out = args[1], in = args[2], group = args[3], txnId = args[4];
    try (Admin admin = Common.admin(bootstrap, "java-txn-admin")) {
      Common.createTopic(admin, out, 1);
      Common.createTopic(admin, in, 1);
    }
    TopicPartition input = new TopicPartition(in, 0);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps(bootstrap, txnId))) {
      producer.initTransactions();
      producer.beginTransaction();
      for (int i = 0; i < 10; i++) producer.send(new ProducerRecord<>(out, 0, null, "c" + i));
      producer.sendOffsetsToTransaction(Map.of(input, new OffsetAndMetadata(10)), new ConsumerGroupMetadata(group));
      producer.commitTransaction();
      producer.beginTransaction();
      for (int i = 0; i < 5; i++) producer.send(new ProducerRecord<>(out, 0, null, "a" + i));
      producer.sendOffsetsToTransaction(Map.of(input, new OffsetAndMetadata(15)), new ConsumerGroupMetadata(group));
      producer.flush();
      producer.abortTransaction();
    }
    Map<String, Object> read = new LinkedHashMap<>();
    read.put("readCommitted", readAll(bootstrap, out, "read_committed"));
    read.put("readUncommitted", readAll(bootstrap, out, "read_uncommitted"));
    try (Admin admin = Common.admin(bootstrap, "java-txn-admin")) {
      OffsetAndMetadata committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().get(input);
      read.put("committed", committed == null ? -1 : committed.offset());
    }
    Common.emit("read", read);

    // Fencing: a second producer with the same transactional id.
    try (KafkaProducer<String, String> zombie = new KafkaProducer<>(producerProps(bootstrap, txnId))) {
      zombie.initTransactions();
      zombie.beginTransaction();
      zombie.send(new ProducerRecord<>(out, 0, null, "zombie")).get();
      try (KafkaProducer<String, String> fresh = new KafkaProducer<>(producerProps(bootstrap, txnId))) {
        fresh.initTransactions();
        Map<String, Object> fenced = new LinkedHashMap<>();
        try {
          zombie.commitTransaction();
          fenced.put("error", "none");
        } catch (Exception e) {
          fenced.put("error", e.getClass().getSimpleName());
        }
        fresh.beginTransaction();
        fresh.send(new ProducerRecord<>(out, 0, null, "fresh"));
        fresh.commitTransaction();
        fenced.put("readCommitted", readAll(bootstrap, out, "read_committed"));
        Common.emit("fenced", fenced);
      }
    } catch (org.apache.kafka.common.errors.ProducerFencedException e) {
      // close() of the fenced producer may throw again; the event above is what counts.
    }
  }

  static Properties producerProps(String bootstrap, String txnId) {
    Properties p = new Properties();
    p.putAll(Common.extra());
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.CLIENT_ID_CONFIG, "java-txn-" + txnId);
    p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, txnId);
    p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    return p;
  }

  /** Every value of partition 0 from the beginning up to the end offset the isolation level sees. */
  static List<String> readAll(String bootstrap, String topic, String isolation) {
    Properties p = new Properties();
    p.putAll(Common.extra());
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.CLIENT_ID_CONFIG, "java-txn-reader-" + isolation);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      long deadline = System.currentTimeMillis() + 60_000;
      while (consumer.position(tp) < end && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) values.add(r.value());
      }
    }
    return values;
  }
}

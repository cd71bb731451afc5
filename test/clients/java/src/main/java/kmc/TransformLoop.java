package kmc;

import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Consume-transform-produce with exactly-once (the loop of Kafka's EOS examples): a consumer in a
 * group (static member, so a restarted instance takes its place at once) reads `in`, and per polled
 * batch one transaction sends each record's value upper-cased to the same partition of `out` and the
 * batch's next offsets with sendOffsetsToTransaction(offsets, consumer.groupMetadata()), then commits.
 *
 * Modes:
 *   run bootstrap in out partitions group txnId crashAt
 *     processes until every partition of `in` is consumed to the end offset it had at start, then
 *     prints {"event":"done","transactions":n}. With crashAt >= 0, the (crashAt+1)-th transaction is
 *     left open once its records are flushed and its offsets sent: the program prints
 *     {"event":"open",...} and waits for the test to SIGKILL it.
 *   read bootstrap topic partitions isolation
 *     prints {"event":"read","values":[...]}: every value of every partition from the beginning up
 *     to the end offset that isolation level sees (read_committed: the last stable offset).
 */
public final class TransformLoop {
  public static void main(String[] args) throws Exception {
    if (args[0].equals("read")) {
      Map<String, Object> read = new LinkedHashMap<>();
      read.put("values", Common.readToEnd(args[1], args[2], Integer.parseInt(args[3]), args[4]));
      Common.emit("read", read);
      return;
    }
    run(args[1], args[2], args[3], Integer.parseInt(args[4]), args[5], args[6], Integer.parseInt(args[7]));
  }

  private static void run(String bootstrap, String in, String out, int partitions, String group, String txnId, int crashAt) throws Exception {
    Properties cp = Common.consumerProps(bootstrap, "transform-" + txnId, group, "classic");
    cp.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "transform-" + txnId);
    cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    cp.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "25");
    Set<TopicPartition> inputs = Common.partitions(in, partitions);
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(cp);
        KafkaProducer<String, String> producer = new KafkaProducer<>(Transactions.producerProps(bootstrap, txnId))) {
      // Fences a previous instance with this transactional id and aborts its open transaction.
      producer.initTransactions();
      Map<TopicPartition, Long> ends = consumer.endOffsets(inputs, Duration.ofSeconds(30));
      consumer.subscribe(List.of(in));
      int transactions = 0;
      long deadline = System.currentTimeMillis() + 90_000;
      while (System.currentTimeMillis() < deadline) {
        ConsumerRecords<String, String> records = consumer.poll(Duration.ofMillis(200));
        if (records.isEmpty()) {
          if (consumer.assignment().equals(inputs) && inputs.stream().allMatch(tp -> consumer.position(tp) >= ends.get(tp))) break;
          continue;
        }
        producer.beginTransaction();
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        for (ConsumerRecord<String, String> r : records) {
          producer.send(new ProducerRecord<>(out, r.partition(), r.key(), r.value().toUpperCase()));
          next.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
        }
        producer.sendOffsetsToTransaction(next, consumer.groupMetadata());
        if (transactions == crashAt) {
          producer.flush();
          Map<String, Object> open = new LinkedHashMap<>();
          open.put("transactions", transactions);
          open.put("records", records.count());
          Common.emit("open", open);
          Thread.sleep(Long.MAX_VALUE);
        }
        producer.commitTransaction();
        transactions++;
      }
      Map<String, Object> done = new LinkedHashMap<>();
      done.put("transactions", transactions);
      done.put("positions", Common.positions(consumer, inputs));
      Common.emit("done", done);
    }
  }
}

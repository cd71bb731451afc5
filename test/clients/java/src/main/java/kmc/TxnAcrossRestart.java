package kmc;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;

/**
 * A transactional producer that keeps committing while the broker is killed and restarted under it:
 * transaction i sends "t<i>-0".."t<i>-2" to partitions 0, 1, 0 of `topic` and commits, printing
 * {"event":"committed","i":i}; a transaction that fails is aborted (when the producer allows it) and
 * printed as {"event":"failed","i":i,"error":...}. Ends after `count` transactions with
 * {"event":"done","committed":n}. Transaction `gate` stops once its records are sent and flushed,
 * prints {"event":"open","i":gate} and waits for the file `gateFile` to exist before it commits (the
 * test kills and restarts the broker meanwhile). Args: bootstrap topic transactionalId count gate gateFile.
 */
public final class TxnAcrossRestart {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], topic = args[1], txnId = args[2];
    int count = Integer.parseInt(args[3]);
    int gate = Integer.parseInt(args[4]);
    java.nio.file.Path gateFile = java.nio.file.Path.of(args[5]);
    Properties p = Transactions.producerProps(bootstrap, txnId);
    // Ride out the broker's restart: requests time out and are retried, nothing gives up meanwhile.
    p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
    p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "120000");
    p.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
    // The transaction held open across the restart must not time out meanwhile, however slow the machine.
    p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, "600000");
    int committed = 0;
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      producer.initTransactions();
      for (int i = 0; i < count; i++) {
        try {
          producer.beginTransaction();
          for (int k = 0; k < 3; k++) producer.send(new ProducerRecord<>(topic, k % 2, null, "t" + i + "-" + k));
          if (i == gate) {
            producer.flush();
            Map<String, Object> open = new LinkedHashMap<>();
            open.put("i", i);
            Common.emit("open", open);
            long deadline = System.currentTimeMillis() + 120_000;
            while (!java.nio.file.Files.exists(gateFile) && System.currentTimeMillis() < deadline) Thread.sleep(20);
          }
          producer.commitTransaction();
          committed++;
          Map<String, Object> e = new LinkedHashMap<>();
          e.put("i", i);
          Common.emit("committed", e);
        } catch (KafkaException err) {
          Map<String, Object> e = new LinkedHashMap<>();
          e.put("i", i);
          e.put("error", err.getClass().getSimpleName() + ": " + err.getMessage());
          Common.emit("failed", e);
          producer.abortTransaction();
        }
      }
    }
    Map<String, Object> done = new LinkedHashMap<>();
    done.put("committed", committed);
    Common.emit("done", done);
  }
}

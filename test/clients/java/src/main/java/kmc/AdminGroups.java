package kmc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;

/**
 * Admin group APIs. Args: bootstrap topic. Topic of 2 partitions with 10 messages (5 each).
 * Group "g-done" (classic) consumes everything, commits and leaves (Empty); group "g-live"
 * (classic) and "g-live848" (consumer protocol) keep consuming in background threads. Then:
 * listConsumerGroups, describeConsumerGroups, listConsumerGroupOffsets, alterConsumerGroupOffsets,
 * deleteConsumerGroupOffsets, deleteConsumerGroups, describeCluster, describeConfigs, one result
 * line each.
 */
public final class AdminGroups {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], topic = args[1];
    TopicPartition p0 = new TopicPartition(topic, 0), p1 = new TopicPartition(topic, 1);
    try (Admin admin = Common.admin(bootstrap, "java-admin")) {
      Common.createTopic(admin, topic, 2);
      Common.produce(bootstrap, "java-producer-admin", topic, 2, 10);

      try (KafkaConsumer<String, String> done = new KafkaConsumer<>(Common.consumerProps(bootstrap, "java-consumer-done", "g-done", "classic"))) {
        done.subscribe(List.of(topic));
        Common.pollUntil(done, 10, 60_000);
        done.commitSync();
      }

      AtomicBoolean stop = new AtomicBoolean(false);
      CountDownLatch ready = new CountDownLatch(2);
      List<Thread> threads = new ArrayList<>();
      for (String[] g : new String[][] {{"g-live", "classic"}, {"g-live848", "consumer"}}) {
        Thread t = new Thread(() -> {
          try (KafkaConsumer<String, String> c = new KafkaConsumer<>(Common.consumerProps(bootstrap, "java-consumer-" + g[0], g[0], g[1]))) {
            c.subscribe(List.of(topic));
            int seen = 0;
            boolean signalled = false;
            while (!stop.get()) {
              ConsumerRecords<String, String> r = c.poll(Duration.ofMillis(100));
              seen += r.count();
              if (!signalled && seen >= 10) {
                c.commitSync();
                signalled = true;
                ready.countDown();
              }
            }
          }
        });
        t.start();
        threads.add(t);
      }
      if (!ready.await(60, java.util.concurrent.TimeUnit.SECONDS)) throw new IllegalStateException("live consumers did not start");

      // listConsumerGroups
      @SuppressWarnings("deprecation")
      Collection<ConsumerGroupListing> listings = admin.listConsumerGroups().all().get();
      List<Object> groups = new ArrayList<>();
      listings.stream().sorted((a, b) -> a.groupId().compareTo(b.groupId())).forEach(l -> {
        Map<String, Object> g = new LinkedHashMap<>();
        g.put("groupId", l.groupId());
        g.put("isSimple", l.isSimpleConsumerGroup());
        g.put("state", l.groupState().map(Object::toString).orElse(null));
        g.put("type", l.type().map(Object::toString).orElse(null));
        groups.add(g);
      });
      Common.emit("listConsumerGroups", Map.of("groups", groups));

      // describeConsumerGroups
      Map<String, ConsumerGroupDescription> descs = admin.describeConsumerGroups(List.of("g-done", "g-live", "g-live848")).all().get();
      Map<String, Object> described = new TreeMap<>();
      for (ConsumerGroupDescription d : descs.values()) {
        Map<String, Object> g = new LinkedHashMap<>();
        g.put("state", d.groupState().toString());
        g.put("type", d.type().toString());
        g.put("isSimple", d.isSimpleConsumerGroup());
        g.put("assignor", d.partitionAssignor());
        g.put("coordinator", d.coordinator().id());
        List<Object> members = new ArrayList<>();
        for (MemberDescription m : d.members()) {
          Map<String, Object> mm = new LinkedHashMap<>();
          mm.put("clientId", m.clientId());
          mm.put("host", m.host());
          mm.put("memberIdEmpty", m.consumerId().isEmpty());
          mm.put("assignment", m.assignment().topicPartitions().stream().map(TopicPartition::toString).sorted().toList());
          members.add(mm);
        }
        g.put("members", members);
        described.put(d.groupId(), g);
      }
      Common.emit("describeConsumerGroups", described);

      Common.emit("listConsumerGroupOffsets", Map.of("g-done", offsets(admin, "g-done"), "g-live", offsets(admin, "g-live")));

      // alterConsumerGroupOffsets on the Empty group
      admin.alterConsumerGroupOffsets("g-done", Map.of(p0, new OffsetAndMetadata(1, "rewound"))).all().get();
      Map<String, Object> altered = new LinkedHashMap<>();
      altered.put("offsets", offsets(admin, "g-done"));
      altered.put("metadata", admin.listConsumerGroupOffsets("g-done").partitionsToOffsetAndMetadata().get().get(p0).metadata());
      altered.put("liveGroup", error(() -> admin.alterConsumerGroupOffsets("g-live", Map.of(p0, new OffsetAndMetadata(0))).all().get()));
      Common.emit("alterConsumerGroupOffsets", altered);

      // deleteConsumerGroupOffsets
      Map<String, Object> deletedOffsets = new LinkedHashMap<>();
      deletedOffsets.put("emptyGroup", error(() -> admin.deleteConsumerGroupOffsets("g-done", Set.of(p1)).all().get()));
      deletedOffsets.put("emptyGroupAfter", offsets(admin, "g-done"));
      deletedOffsets.put("subscribedClassic", error(() -> admin.deleteConsumerGroupOffsets("g-live", Set.of(p0)).partitionResult(p0).get()));
      deletedOffsets.put("subscribedConsumer", error(() -> admin.deleteConsumerGroupOffsets("g-live848", Set.of(p0)).partitionResult(p0).get()));
      deletedOffsets.put("unknownGroup", error(() -> admin.deleteConsumerGroupOffsets("g-unknown", Set.of(p0)).all().get()));
      Common.emit("deleteConsumerGroupOffsets", deletedOffsets);

      // deleteConsumerGroups
      Map<String, Object> deleted = new LinkedHashMap<>();
      deleted.put("g-done", error(() -> admin.deleteConsumerGroups(List.of("g-done")).all().get()));
      deleted.put("g-live", error(() -> admin.deleteConsumerGroups(List.of("g-live")).all().get()));
      deleted.put("g-unknown", error(() -> admin.deleteConsumerGroups(List.of("g-unknown")).all().get()));
      @SuppressWarnings("deprecation")
      List<String> after = admin.listConsumerGroups().all().get().stream().map(ConsumerGroupListing::groupId).sorted().toList();
      deleted.put("groupsAfter", after);
      Common.emit("deleteConsumerGroups", deleted);

      stop.set(true);
      for (Thread t : threads) t.join(30_000);

      // describeCluster
      DescribeClusterResult cluster = admin.describeCluster();
      Map<String, Object> c = new LinkedHashMap<>();
      c.put("clusterId", cluster.clusterId().get());
      c.put("controller", cluster.controller().get().id());
      c.put("nodes", cluster.nodes().get().stream().map(n -> n.id() + "@" + n.host() + ":" + n.port()).toList());
      Common.emit("describeCluster", c);

      // describeConfigs
      ConfigResource brokerRes = new ConfigResource(ConfigResource.Type.BROKER, "1");
      ConfigResource topicRes = new ConfigResource(ConfigResource.Type.TOPIC, topic);
      ConfigResource offsetsRes = new ConfigResource(ConfigResource.Type.TOPIC, "__consumer_offsets");
      Map<ConfigResource, Config> configs = admin.describeConfigs(List.of(brokerRes, topicRes, offsetsRes)).all().get();
      Map<String, Object> cfg = new LinkedHashMap<>();
      cfg.put("broker", entries(configs.get(brokerRes), "offsets.retention.minutes", "group.initial.rebalance.delay.ms", "log.roll.ms"));
      cfg.put("topic", entries(configs.get(topicRes), "cleanup.policy", "segment.bytes", "retention.ms"));
      cfg.put("offsets", entries(configs.get(offsetsRes), "cleanup.policy", "segment.bytes"));
      cfg.put("missingTopic", error(() -> admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, "no-such-topic"))).all().get()));
      Common.emit("describeConfigs", cfg);
    }
  }

  private static Map<String, Object> entries(Config config, String... names) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (String n : names) {
      ConfigEntry e = config.get(n);
      out.put(n, e == null ? null : Map.of("value", String.valueOf(e.value()), "source", e.source().toString(), "readOnly", e.isReadOnly()));
    }
    return out;
  }

  private static Map<String, Object> offsets(Admin admin, String group) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> offs = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
    Map<String, Object> out = new TreeMap<>();
    offs.forEach((tp, om) -> out.put(tp.toString(), om == null ? null : om.offset()));
    return out;
  }

  interface Call {
    Object run() throws Exception;
  }

  /** "OK" or the exception's simple class name (the cause for an ExecutionException). */
  private static String error(Call call) {
    try {
      call.run();
      return "OK";
    } catch (ExecutionException e) {
      return e.getCause().getClass().getSimpleName();
    } catch (Exception e) {
      return e.getClass().getSimpleName();
    }
  }
}

package kmc;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.admin.ShareMemberDescription;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Share groups, the group side (KIP-932). Args: bootstrap topic group. Creates a 2-partition topic;
 * two KafkaShareConsumers (client ids java-share-0, java-share-1) join the share group and poll
 * until Admin.describeShareGroups shows both members holding one partition each; then the group
 * as describeShareGroups and listGroups(forShareGroups) show it, the consumers close (leaving the
 * group), the empty group, deleteShareGroups and a describe of the deleted group. One result line
 * each; "pollErrors" lists the exceptions poll() threw (class names).
 */
public final class ShareGroupMembers {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], topic = args[1], group = args[2];
    try (Admin admin = Common.admin(bootstrap, "java-admin-share")) {
      Common.createTopic(admin, topic, 2);
      AtomicBoolean stop = new AtomicBoolean(false);
      TreeSet<String> pollErrors = new TreeSet<>();
      List<Thread> threads = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        Properties p = new Properties();
        p.putAll(Common.extra());
        p.put("bootstrap.servers", bootstrap);
        p.put("group.id", group);
        p.put("client.id", "java-share-" + i);
        p.put("key.deserializer", StringDeserializer.class.getName());
        p.put("value.deserializer", StringDeserializer.class.getName());
        Thread t = new Thread(() -> {
          try (KafkaShareConsumer<String, String> c = new KafkaShareConsumer<>(p)) {
            c.subscribe(List.of(topic));
            while (!stop.get()) {
              try {
                c.poll(Duration.ofMillis(100));
              } catch (RuntimeException e) {
                synchronized (pollErrors) {
                  pollErrors.add(e.getClass().getSimpleName());
                }
              }
            }
          }
        });
        t.setDaemon(true);
        t.start();
        threads.add(t);
      }

      ShareGroupDescription stable = awaitGroup(admin, group, d -> d.members().size() == 2 && d.members().stream().allMatch(m -> m.assignment().topicPartitions().size() == 1));
      Common.emit("describe", describe(stable));
      List<Map<String, Object>> listed = new ArrayList<>();
      for (GroupListing g : admin.listGroups(ListGroupsOptions.forShareGroups()).all().get()) {
        if (!g.groupId().equals(group)) continue;
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("groupId", g.groupId());
        e.put("type", g.type().map(Object::toString).orElse(null));
        e.put("protocol", g.protocol());
        e.put("state", g.groupState().map(Object::toString).orElse(null));
        listed.add(e);
      }
      Common.emit("listGroups", Map.of("groups", listed));

      stop.set(true);
      for (Thread t : threads) t.join();
      ShareGroupDescription empty = awaitGroup(admin, group, d -> d.members().isEmpty());
      Common.emit("afterClose", describe(empty));
      admin.deleteShareGroups(List.of(group)).all().get();
      String afterDelete;
      try {
        afterDelete = admin.describeShareGroups(List.of(group)).all().get().get(group).groupState().toString();
      } catch (ExecutionException e) {
        afterDelete = e.getCause().getClass().getSimpleName();
      }
      Common.emit("deleted", Map.of("describe", afterDelete));
      synchronized (pollErrors) {
        Common.emit("pollErrors", Map.of("errors", new ArrayList<>(pollErrors)));
      }
    }
  }

  private static ShareGroupDescription awaitGroup(Admin admin, String group, java.util.function.Predicate<ShareGroupDescription> done) throws Exception {
    long deadline = System.currentTimeMillis() + 60_000;
    while (true) {
      ShareGroupDescription d = null;
      try {
        d = admin.describeShareGroups(List.of(group)).all().get().get(group);
      } catch (ExecutionException e) {
        // The group exists once the first member's heartbeat is written.
        if (!(e.getCause() instanceof org.apache.kafka.common.errors.GroupIdNotFoundException)) throw e;
      }
      if (d != null && done.test(d)) return d;
      if (System.currentTimeMillis() > deadline) throw new IllegalStateException("group never reached the state: " + d);
      Thread.sleep(100);
    }
  }

  private static Map<String, Object> describe(ShareGroupDescription d) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("state", d.groupState().toString());
    out.put("coordinator", d.coordinator().id());
    out.put("groupEpoch", d.groupEpoch());
    out.put("targetAssignmentEpoch", d.targetAssignmentEpoch());
    List<Map<String, Object>> members = new ArrayList<>();
    for (ShareMemberDescription m : d.members()) {
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("clientId", m.clientId());
      e.put("host", m.host());
      e.put("memberEpoch", m.memberEpoch());
      e.put("consumerIdLength", m.consumerId().length());
      TreeSet<String> parts = new TreeSet<>();
      m.assignment().topicPartitions().forEach(tp -> parts.add(tp.toString()));
      e.put("assignment", new ArrayList<>(parts));
      members.add(e);
    }
    members.sort((a, b) -> ((String) a.get("clientId")).compareTo((String) b.get("clientId")));
    out.put("members", members);
    return out;
  }
}

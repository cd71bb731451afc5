import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.SimpleAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;

/**
 * Runs Kafka 4.3.1's own share-group assignor (`SimpleAssignor`, kafka-group-coordinator jar) on
 * cases read from stdin, one per line, and prints one line of assignments per case, for
 * test/coordinator/share/simple-assignor.test.ts. Run with the source launcher:
 * `java -cp '.kafka/4.3.1/libs/*' test/clients/java/tools/SimpleAssignorCheck.java`.
 *
 * A case: `H|topics|assignable|member;member...` (H or X: homogeneous or heterogeneous);
 * topics `id=count,...`; assignable `id=p.p.p,...`; a member `memberId=subscribedIds(.-separated,
 * in iteration order)=assignment` with assignment `id:p.p,...`. Output: `memberId=id:p.p,...;...`
 * with members, topics and partitions sorted; `!ExceptionClass` when Kafka's assignor throws.
 */
public class SimpleAssignorCheck {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    String line;
    while ((line = in.readLine()) != null) {
      if (line.isBlank()) continue;
      String[] f = line.split("\\|", -1);
      Map<Uuid, Integer> counts = new HashMap<>();
      for (String t : split(f[1], ",")) {
        String[] kv = t.split("=");
        counts.put(Uuid.fromString(kv[0]), Integer.parseInt(kv[1]));
      }
      Map<Uuid, Set<Integer>> assignable = new HashMap<>();
      for (String t : split(f[2], ",")) {
        String[] kv = t.split("=", -1);
        Set<Integer> ps = new HashSet<>();
        for (String p : split(kv[1], ".")) ps.add(Integer.parseInt(p));
        assignable.put(Uuid.fromString(kv[0]), ps);
      }
      Map<String, MemberSubscriptionAndAssignmentImpl> members = new HashMap<>();
      for (String m : split(f[3], ";")) {
        String[] parts = m.split("=", -1);
        Set<Uuid> subscribed = new LinkedHashSet<>();
        for (String id : split(parts[1], ".")) subscribed.add(Uuid.fromString(id));
        Map<Uuid, Set<Integer>> assignment = new HashMap<>();
        for (String tp : split(parts[2], ",")) {
          String[] kv = tp.split(":", -1);
          Set<Integer> ps = new HashSet<>();
          for (String p : split(kv[1], ".")) ps.add(Integer.parseInt(p));
          assignment.put(Uuid.fromString(kv[0]), ps);
        }
        members.put(parts[0], new MemberSubscriptionAndAssignmentImpl(Optional.empty(), Optional.empty(), subscribed, new Assignment(assignment)));
      }
      SubscribedTopicDescriber describer = new SubscribedTopicDescriber() {
        public int numPartitions(Uuid topicId) {
          return counts.getOrDefault(topicId, -1);
        }

        public Set<String> racksForPartition(Uuid topicId, int partition) {
          return Set.of();
        }
      };
      SubscriptionType type = f[0].equals("H") ? SubscriptionType.HOMOGENEOUS : SubscriptionType.HETEROGENEOUS;
      GroupAssignment result;
      try {
        result = new SimpleAssignor().assign(new GroupSpecImpl(members, type, Map.of(), Optional.of(assignable)), describer);
      } catch (RuntimeException e) {
        System.out.println("!" + e.getClass().getSimpleName());
        continue;
      }
      List<String> out = new ArrayList<>();
      new TreeMap<>(result.members()).forEach((memberId, a) -> {
        List<String> topics = new ArrayList<>();
        new TreeMap<String, Set<Integer>>(toStrings(a.partitions())).forEach((id, ps) -> {
          if (ps.isEmpty()) return;
          StringBuilder sb = new StringBuilder(id).append(':');
          List<String> pl = new ArrayList<>();
          for (int p : new TreeSet<>(ps)) pl.add(Integer.toString(p));
          topics.add(sb.append(String.join(".", pl)).toString());
        });
        out.add(memberId + "=" + String.join(",", topics));
      });
      System.out.println(String.join(";", out));
    }
  }

  private static Map<String, Set<Integer>> toStrings(Map<Uuid, Set<Integer>> m) {
    Map<String, Set<Integer>> out = new HashMap<>();
    m.forEach((k, v) -> out.put(k.toString(), v));
    return out;
  }

  private static List<String> split(String s, String sep) {
    List<String> out = new ArrayList<>();
    if (s.isEmpty()) return out;
    for (String x : s.split(java.util.regex.Pattern.quote(sep), -1)) out.add(x);
    return out;
  }
}

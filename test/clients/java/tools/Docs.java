// Documentation strings and error messages for src/apis/32-describe-configs-data.ts (see Dump.java).
import java.util.*;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.storage.internals.log.LogConfig;
import kafka.server.KafkaConfig$;
public class Docs {
  static String q(Object s) { if (s == null) return "null"; return "\"" + s.toString().replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\""; }
  public static void main(String[] args) {
    Map<String, ConfigDef.ConfigKey> keys = scala.jdk.javaapi.CollectionConverters.asJava(KafkaConfig$.MODULE$.configKeys());
    StringBuilder out = new StringBuilder("{\"brokerDocs\": {");
    for (int i = 0; i < args.length; i++) out.append(i == 0 ? "" : ",\n").append(q(args[i])).append(": ").append(q(keys.get(args[i]).documentation));
    out.append("},\n\"topicDocs\": {");
    boolean first = true;
    for (String n : LogConfig.nonInternalConfigNames()) { out.append(first ? "" : ",\n").append(q(n)).append(": ").append(q(LogConfig.configKeys().get(n).documentation)); first = false; }
    out.append("},\n\"messages\": {");
    out.append("\"INVALID_REQUEST\": ").append(q(Errors.INVALID_REQUEST.message()));
    for (String t : new String[]{"", ".", "..", "a/b", "x".repeat(250)}) {
      try { Topic.validate(t); } catch (Exception e) { out.append(",\n").append(q("topic:" + t)).append(": ").append(q(e.getClass().getSimpleName() + ": " + e.getMessage())); }
    }
    out.append("}}\n");
    System.out.print(out);
  }
}

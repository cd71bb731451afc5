// Prints Kafka 4.3.1 config metadata as JSON; generates src/apis/32-describe-configs-data.ts.
// Run against the broker jars of scripts/fetch-kafka.sh (not part of the Maven build of this directory):
//   javac -cp ".kafka/4.3.1/libs/*" -d /tmp/kdump test/clients/java/tools/*.java
//   java -cp ".kafka/4.3.1/libs/*:/tmp/kdump" Dump <our broker config keys...> > dump.json
//   java -cp ".kafka/4.3.1/libs/*:/tmp/kdump" Docs <our broker config keys...> > docs.json
import java.util.*;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.server.config.DynamicBrokerConfig;
import org.apache.kafka.server.config.ServerTopicConfigSynonyms;
import org.apache.kafka.storage.internals.log.LogConfig;
import kafka.server.KafkaConfig;
import kafka.server.KafkaConfig$;

public class Dump {
  static String q(Object s) { if (s == null) return "null"; return "\"" + s.toString().replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\""; }
  public static void main(String[] args) {
    Properties p = new Properties();
    p.put("process.roles", "broker,controller"); p.put("node.id", "1");
    p.put("controller.quorum.voters", "1@localhost:9093");
    p.put("listeners", "PLAINTEXT://:9092,CONTROLLER://:9093"); p.put("controller.listener.names", "CONTROLLER");
    KafkaConfig kc = KafkaConfig$.MODULE$.fromProps(p, false);
    StringBuilder out = new StringBuilder("{\n\"broker\": {\n");
    boolean first = true;
    for (String name : args) {
      Map<String, ConfigDef.ConfigKey> keys = scala.jdk.javaapi.CollectionConverters.asJava(KafkaConfig$.MODULE$.configKeys());
      ConfigDef.ConfigKey k = keys.get(name);
      if (k == null) { System.err.println("unknown " + name); continue; }
      Object dv = k.hasDefault() ? k.defaultValue : null;
      out.append(first ? "" : ",\n").append(q(name)).append(": {\"type\": ").append(q(k.type)).append(", \"default\": ")
         .append(q(dv == null ? null : ConfigDef.convertToString(dv, k.type)))
         .append(", \"dynamic\": ").append(DynamicBrokerConfig.ALL_DYNAMIC_CONFIGS.contains(name))
         .append(", \"synonyms\": [");
      List<String> syn = DynamicBrokerConfig.brokerConfigSynonyms(name, true);
      for (int i = 0; i < syn.size(); i++) out.append(i == 0 ? "" : ", ").append(q(syn.get(i)));
      out.append("]}");
      first = false;
    }
    out.append("\n},\n\"topic\": {\n");
    first = true;
    LogConfig lc = LogConfig.fromProps(kc.extractLogConfigMap(), new Properties());
    Map<String, Object> vals = new TreeMap<>(lc.nonInternalValues());
    for (String name : LogConfig.nonInternalConfigNames()) {
      Optional<ConfigDef.Type> t = LogConfig.configType(name);
      String syn = ServerTopicConfigSynonyms.TOPIC_CONFIG_SYNONYMS.get(name);
      out.append(first ? "" : ",\n").append(q(name)).append(": {\"type\": ").append(q(t.map(Object::toString).orElse(null)))
         .append(", \"value\": ").append(q(ConfigDef.convertToString(vals.get(name), t.orElse(null))))
         .append(", \"synonym\": ").append(q(syn));
      if (syn != null) {
        Map<String, ConfigDef.ConfigKey> keys = scala.jdk.javaapi.CollectionConverters.asJava(KafkaConfig$.MODULE$.configKeys());
        ConfigDef.ConfigKey k = keys.get(syn);
        Object dv = k != null && k.hasDefault() ? k.defaultValue : null;
        out.append(", \"brokerDefault\": ").append(q(dv == null ? null : ConfigDef.convertToString(dv, k.type)));
        out.append(", \"brokerSynonyms\": [");
        List<String> bs = DynamicBrokerConfig.brokerConfigSynonyms(syn, true);
        for (int i = 0; i < bs.size(); i++) {
          ConfigDef.ConfigKey bk = keys.get(bs.get(i));
          Object bdv = bk != null && bk.hasDefault() ? bk.defaultValue : null;
          out.append(i == 0 ? "" : ", ").append("[").append(q(bs.get(i))).append(", ").append(q(bdv == null ? null : ConfigDef.convertToString(bdv, bk.type))).append("]");
        }
        out.append("]");
      }
      out.append("}");
      first = false;
    }
    out.append("\n}\n}\n");
    System.out.print(out);
  }
}

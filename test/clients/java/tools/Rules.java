// Validation rules for src/configs/kafka-config-data.ts (see Dump.java): Kafka 4.3.1's topic and group
// config validators, the broker configs that cannot change dynamically or only per broker, the type of
// every broker config (`DynamicBrokerConfig.validateConfigTypes` parses dynamic values by it), and the
// validators of broker configs (a dynamic change builds a new KafkaConfig, which runs them).
import java.lang.reflect.Field;
import java.util.*;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.server.config.DynamicBrokerConfig;
import org.apache.kafka.server.config.DynamicConfig;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.coordinator.group.GroupConfig;
import kafka.server.KafkaConfig$;

public class Rules {
  static String q(Object s) { if (s == null) return "null"; return "\"" + s.toString().replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\""; }
  static Object field(Object o, String name) throws Exception {
    for (Class<?> c = o.getClass(); c != null; c = c.getSuperclass()) {
      try { Field f = c.getDeclaredField(name); f.setAccessible(true); return f.get(o); } catch (NoSuchFieldException e) { /* up */ }
    }
    return null;
  }
  static String list(Collection<?> items) {
    StringBuilder b = new StringBuilder("[");
    boolean first = true;
    for (Object i : items) { b.append(first ? "" : ", ").append(q(i)); first = false; }
    return b.append("]").toString();
  }
  static String validator(ConfigDef.Validator v) throws Exception {
    if (v == null) return "{\"kind\": \"none\"}";
    String cls = v.getClass().getSimpleName();
    switch (cls) {
      case "Range": return "{\"kind\": \"range\", \"min\": " + q(field(v, "min")) + ", \"max\": " + q(field(v, "max")) + "}";
      case "ValidString": return "{\"kind\": \"oneOf\", \"values\": " + list((List<?>) field(v, "validStrings")) + "}";
      case "ValidList": return "{\"kind\": \"listOf\", \"values\": " + list((List<?>) field(field(v, "validString"), "validStrings")) + "}";
      default: return "{\"kind\": " + q(cls) + ", \"text\": " + q(v.toString()) + "}";
    }
  }
  @SuppressWarnings("unchecked")
  public static void main(String[] args) throws Exception {
    StringBuilder out = new StringBuilder("{\"topicValidators\": {");
    boolean first = true;
    for (String n : LogConfig.nonInternalConfigNames()) {
      out.append(first ? "" : ",\n").append(q(n)).append(": ").append(validator(LogConfig.configKeys().get(n).validator));
      first = false;
    }
    // LogConfig's definition order: ConfigDef.parse checks the values in it, so the first refused is named.
    out.append("},\n\"topicCheckOrder\": [");
    first = true;
    for (String n : LogConfig.configKeys().keySet()) {
      if (!LogConfig.nonInternalConfigNames().contains(n)) continue;
      out.append(first ? "" : ", ").append(q(n));
      first = false;
    }
    out.append("],\n\"brokerConfigs\": {");
    Map<String, ConfigDef.ConfigKey> keys = scala.jdk.javaapi.CollectionConverters.asJava(KafkaConfig$.MODULE$.configKeys());
    first = true;
    for (String n : new TreeSet<>(keys.keySet())) {
      ConfigDef.ConfigKey k = keys.get(n);
      Object dv = k.hasDefault() ? k.defaultValue : null;
      out.append(first ? "" : ",\n").append(q(n)).append(": [").append(q(k.type)).append(", ").append(q(dv == null ? null : ConfigDef.convertToString(dv, k.type))).append("]");
      first = false;
    }
    // In definition order: ConfigDef.parse checks values in this order, so the first refused is named.
    out.append("},\n\"brokerValidators\": {");
    first = true;
    for (String n : keys.keySet()) {
      ConfigDef.ConfigKey k = keys.get(n);
      if (k.validator == null) continue;
      out.append(first ? "" : ",\n").append(q(n)).append(": ").append(validator(k.validator));
      first = false;
    }
    Field perBroker = DynamicBrokerConfig.class.getDeclaredField("PER_BROKER_CONFIGS");
    perBroker.setAccessible(true);
    out.append("},\n\"nonDynamic\": ").append(list(new TreeSet<>(DynamicConfig.Broker.nonDynamicProps())));
    out.append(",\n\"perBroker\": ").append(list(new TreeSet<>((Set<String>) perBroker.get(null))));
    out.append(",\n\"groupConfigs\": {");
    first = true;
    for (ConfigDef.ConfigKey k : GroupConfig.CONFIG_DEF.configKeys().values()) {
      out.append(first ? "" : ",\n").append(q(k.name)).append(": {\"type\": ").append(q(k.type))
         .append(", \"default\": ").append(q(ConfigDef.convertToString(k.defaultValue, k.type)))
         .append(", \"brokerSynonym\": ").append(q(GroupConfig.brokerSynonym(k.name).orElse(null)))
         .append(", \"validator\": ").append(validator(k.validator))
         .append(", \"documentation\": ").append(q(k.documentation)).append("}");
      first = false;
    }
    out.append("}}\n");
    System.out.print(out);
  }
}

package kmc;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;

/**
 * Connects with an Admin client (the settings of -Dkmc.client.props) and describes the cluster.
 * Args: bootstrap. Emits {"event":"connect","ok":true,"nodes":N} or, when the client gives up
 * (authentication or TLS failure), {"event":"connect","ok":false,"error":"<exception class>","message":"..."}.
 */
public final class Connect {
  public static void main(String[] args) throws Exception {
    Map<String, Object> out = new LinkedHashMap<>();
    try (Admin admin = Common.admin(args[0], "java-connect")) {
      int nodes = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size();
      out.put("ok", true);
      out.put("nodes", nodes);
    } catch (ExecutionException e) {
      out.put("ok", false);
      out.put("error", e.getCause().getClass().getSimpleName());
      out.put("message", e.getCause().getMessage());
    }
    Common.emit("connect", out);
  }
}

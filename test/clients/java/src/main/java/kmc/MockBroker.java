package kmc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The README's recipe for a JVM test suite (JUnit 5, Spring's {@code @DynamicPropertySource}):
 * starts the server as a child process, in memory on free ports, and reads its ready line for the
 * bootstrap address and the admin API's URL. {@code --stop-when-stdin-closes} stops the server
 * when this JVM exits however it exits, so a suite whose clients close only at JVM exit (Spring's
 * cached contexts) needs no {@code @AfterAll}; {@link #close} stops it earlier.
 */
public final class MockBroker implements AutoCloseable {
  private static final Pattern FIELD = Pattern.compile("\"(bootstrap|admin)\":\"([^\"]*)\"");
  private static final Pattern PORT = Pattern.compile(":(\\d+)$");
  private static final Pattern BROKERS = Pattern.compile("\"brokers\":\\{([^}]*)\\}");
  private static final Pattern BROKER_PORT = Pattern.compile("\"(\\d+)\":(\\d+)");

  private final List<String> command;
  private Process process;
  public volatile String bootstrap;
  public volatile String admin;
  /** With {@code --brokers N}: each broker's port by id (empty with one broker). */
  public volatile Map<Integer, Integer> brokers = Map.of();

  /** {@code command}: how to run the server, e.g. {@code node node_modules/.bin/kafka-mock-coordinator}. */
  public MockBroker(String... command) throws IOException {
    this(List.of(command));
  }

  /**
   * {@code args} go to the server after the recipe's own (e.g. {@code --clock manual},
   * {@code --brokers 3}); with {@code --data-dir} the server keeps its data there instead of in
   * memory, so {@link #restart} finds it again.
   */
  public MockBroker(List<String> command, String... args) throws IOException {
    List<String> all = new ArrayList<>(command);
    if (List.of(args).stream().noneMatch(a -> a.equals("--data-dir") || a.startsWith("--data-dir="))) all.add("--in-memory");
    all.addAll(List.of("--port", "0", "--admin-port", "0", "--stop-when-stdin-closes"));
    all.addAll(List.of(args));
    this.command = all;
    start(all);
  }

  private void start(List<String> argv) throws IOException {
    process = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String bootstrap = null, admin = null;
    for (String line; (line = out.readLine()) != null; ) {
      if (!line.contains("\"msg\":\"kafka-mock-coordinator ready")) continue;
      for (Matcher m = FIELD.matcher(line); m.find(); ) {
        if (m.group(1).equals("bootstrap")) bootstrap = m.group(2);
        else admin = m.group(2);
      }
      Map<Integer, Integer> ports = new TreeMap<>();
      Matcher listed = BROKERS.matcher(line);
      if (listed.find()) {
        for (Matcher m = BROKER_PORT.matcher(listed.group(1)); m.find(); ) ports.put(Integer.valueOf(m.group(1)), Integer.valueOf(m.group(2)));
      }
      this.brokers = Collections.unmodifiableMap(ports);
      break;
    }
    if (bootstrap == null) {
      process.destroy();
      throw new IOException("the server exited before its ready line");
    }
    this.bootstrap = bootstrap;
    this.admin = admin;
    // The rest of its log is read and dropped, so a full pipe never blocks the server.
    Thread drain = new Thread(() -> out.lines().forEach(line -> {}));
    drain.setDaemon(true);
    drain.start();
  }

  /**
   * Stops the server (as SIGTERM: every acknowledged write kept) and starts it again on the same
   * ports, so running clients reconnect to the same addresses; on a {@code --data-dir} it comes
   * back with its topics, records, groups and offsets, in memory empty.
   */
  public void restart() throws IOException, InterruptedException {
    close();
    List<String> argv = new ArrayList<>(command);
    argv.addAll(List.of("--port", port(bootstrap)));
    if (admin != null) argv.addAll(List.of("--admin-port", port(admin)));
    start(argv);
  }

  private static String port(String address) {
    Matcher m = PORT.matcher(address);
    if (!m.find()) throw new IllegalStateException("no port in " + address);
    return m.group(1);
  }

  /** Stops the server (as SIGTERM: every acknowledged write kept) and waits for it to exit. */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    process.waitFor();
  }
}

package kmc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
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
  private static final Pattern RULE_ID = Pattern.compile("\"id\":\"([^\"]+)\"");
  private static final Pattern FIRED = Pattern.compile("\"fired\":(\\d+)");
  private static final Pattern NOW = Pattern.compile("\"now\":(\\d+)");

  /** Log lines {@link #recentLog} keeps. */
  private static final int RECENT_LINES = 1000;

  private final List<String> command;
  private final ArrayDeque<String> recent = new ArrayDeque<>();
  private Process process;
  /** How many times the server was started: a fault rule belongs to the process it was added to. */
  private volatile int starts;
  public volatile String bootstrap;
  public volatile String admin;
  /** With {@code --brokers N}: each broker's port by id (empty with one broker). */
  public volatile Map<Integer, Integer> brokers = Map.of();

  /**
   * {@code command}: how to run the server, e.g. {@code npx --no kafka-mock-coordinator}, or
   * {@code node /abs/path/dist/cli.cjs} in a clone (an absolute path: Maven forks run elsewhere).
   */
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
    starts++;
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
    // The rest of its log is read (a full pipe would block the server) and its last lines kept.
    Thread drain = new Thread(() -> {
      try {
        out.lines().forEach(this::keep);
      } catch (UncheckedIOException closed) {
        // close() or restart() ended the process while this read: nothing more to keep.
      }
    });
    drain.setDaemon(true);
    drain.start();
  }

  private void keep(String line) {
    synchronized (recent) {
      if (recent.size() == RECENT_LINES) recent.removeFirst();
      recent.addLast(line);
    }
  }

  /**
   * The server's last log lines after its ready line (JSON, one per line, at most 1000), oldest
   * first: print them when a test fails, e.g. from a JUnit {@code TestWatcher}.
   */
  public List<String> recentLog() {
    synchronized (recent) {
      return List.copyOf(recent);
    }
  }

  /** Every broker's address for {@code bootstrap.servers} ({@code --brokers N}: all N; else {@link #bootstrap}). */
  public String bootstrapServers() {
    if (brokers.isEmpty()) return bootstrap;
    String host = bootstrap.substring(0, bootstrap.lastIndexOf(':'));
    return String.join(",", brokers.values().stream().map(port -> host + ":" + port).toList());
  }

  /**
   * The admin API (fault rules, the manual clock): sends {@code json} (null: no body) and returns
   * the JSON answer's text; an answer of 300 or more throws an IOException with its status and body.
   */
  public String call(String method, String path, String json) throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(admin + path)).header("Content-Type", "application/json");
    request.method(method, json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
    HttpResponse<String> answer = Http.CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    if (answer.statusCode() >= 300) throw new IOException(method + " " + path + ": " + answer.statusCode() + " " + answer.body());
    return answer.body();
  }

  /**
   * Adds a fault rule (the JSON {@code POST /faults} takes, e.g.
   * {@code {"match":{"api":"OffsetCommit"},"action":{"type":"error","error":"REBALANCE_IN_PROGRESS"}}});
   * closing the returned {@link Fault} removes it (try-with-resources).
   */
  public Fault fault(String ruleJson) throws IOException, InterruptedException {
    return new Fault(field(call("POST", "/faults", ruleJson), RULE_ID, "id"));
  }

  /**
   * Moves the manual clock (a server started with {@code --clock manual}) {@code ms} forward,
   * firing what falls due (session timeouts, transaction timeouts, acquisition locks); returns its time (ms).
   */
  public long advanceClock(long ms) throws IOException, InterruptedException {
    return Long.parseLong(field(call("POST", "/clock/advance", "{\"ms\":" + ms + "}"), NOW, "now"));
  }

  private static String field(String json, Pattern pattern, String name) {
    Matcher m = pattern.matcher(json);
    if (!m.find()) throw new IllegalStateException("no " + name + " in " + json);
    return m.group(1);
  }

  /** The admin API's client, made on the first call. */
  private static final class Http {
    static final HttpClient CLIENT = HttpClient.newHttpClient();
  }

  /**
   * A fault rule on the server: {@link #close} removes it. Rules live in the server's memory, so a
   * {@link #restart} ends them, and the new process numbers its rules from f1 again: after a
   * restart {@link #close} does nothing and the other methods throw IllegalStateException, rather
   * than act on a newer rule that took the same id.
   */
  public final class Fault implements AutoCloseable {
    public final String id;
    private final int start;

    private Fault(String id) {
      this.id = id;
      this.start = starts;
    }

    /** How many times the rule has fired. */
    public int fired() throws IOException, InterruptedException {
      return Integer.parseInt(field(call("GET", "/faults/" + live(), null), FIRED, "fired"));
    }

    /** Waits until the rule fired {@code count} times: IOException 408 after {@code timeoutMs}, 410 as soon as it cannot get there (removed, exhausted, expired). */
    public void waitFired(int count, long timeoutMs) throws IOException, InterruptedException {
      call("POST", "/faults/" + live() + "/wait", "{\"count\":" + count + ",\"timeoutMs\":" + timeoutMs + "}");
    }

    @Override
    public void close() throws IOException, InterruptedException {
      if (start == starts) call("DELETE", "/faults/" + id, null);
    }

    private String live() {
      if (start != starts) throw new IllegalStateException("fault rule " + id + " ended with the server's restart (rules are kept in memory)");
      return id;
    }
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

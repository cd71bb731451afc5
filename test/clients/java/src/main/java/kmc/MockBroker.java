package kmc;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
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

  private final Process process;
  public final String bootstrap;
  public final String admin;

  /** {@code command}: how to run the server, e.g. {@code node node_modules/.bin/kafka-mock-coordinator}. */
  public MockBroker(String... command) throws IOException {
    String[] args = {"--in-memory", "--port", "0", "--admin-port", "0", "--stop-when-stdin-closes"};
    String[] all = new String[command.length + args.length];
    System.arraycopy(command, 0, all, 0, command.length);
    System.arraycopy(args, 0, all, command.length, args.length);
    process = new ProcessBuilder(all).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    String bootstrap = null, admin = null;
    for (String line; (line = out.readLine()) != null; ) {
      if (!line.contains("\"msg\":\"kafka-mock-coordinator ready")) continue;
      for (Matcher m = FIELD.matcher(line); m.find(); ) {
        if (m.group(1).equals("bootstrap")) bootstrap = m.group(2);
        else admin = m.group(2);
      }
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

  /** Stops the server (as SIGTERM: every acknowledged write kept) and waits for it to exit. */
  @Override
  public void close() throws InterruptedException {
    process.destroy();
    process.waitFor();
  }
}

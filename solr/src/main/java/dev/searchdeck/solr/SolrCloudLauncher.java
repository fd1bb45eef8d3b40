package dev.searchdeck.solr;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.solr.cloud.MiniSolrCloudCluster;
import org.apache.solr.cloud.ZkTestServer;
import org.apache.solr.common.cloud.SolrZkClient;
import org.apache.solr.embedded.JettyConfig;
import org.apache.solr.embedded.JettySolrRunner;

/**
 * Starts a SolrCloud in this JVM: an embedded ZooKeeper (Solr's under the chroot /solr; on the
 * first node's port + 1000 as Solr's own embedded ZooKeeper, or a free port), the
 * cluster's security.json, the configsets given, and Jetty nodes. When it is ready it prints one
 * line, {@code ready } and a JSON object: the ZooKeeper connect string, each node's base URL and
 * the control address. It stops on SIGTERM, and when standard input closes or, given --watch-pid,
 * when that process ends instead: a test run that dies never leaves a Solr behind.
 *
 * <p>The control address (loopback only) lets a test stop, start and add nodes: {@code GET
 * /nodes}, {@code POST /nodes} (a new node), {@code POST /nodes/{name}/stop}, {@code POST
 * /nodes/{name}/start}. Each answers the nodes as JSON once the change is done.
 *
 * <p>Options: --port N (the first node's port, the next ones follow; 0 for free ports), --nodes
 * N, --security FILE, --configset NAME=DIR (repeatable), --dir DIR (the cluster's files under
 * DIR/cloud; kept unless --temporary is given; a temporary directory when absent), --watch-pid
 * PID.
 */
public final class SolrCloudLauncher {
  private static final String CONTEXT = "/solr";

  private final MiniSolrCloudCluster cluster;
  private final Map<String, Node> nodes = new LinkedHashMap<>();
  private int nextPort;

  /** A node the launcher started, kept when stopped so that it can start again on its port. */
  private static final class Node {
    final String name;
    final int port;
    JettySolrRunner jetty;
    boolean running;

    Node(String name, int port) {
      this.name = name;
      this.port = port;
    }
  }

  private SolrCloudLauncher(MiniSolrCloudCluster cluster, int firstPort) {
    this.cluster = cluster;
    this.nextPort = firstPort;
  }

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    Path base = options.dir != null ? options.dir : Files.createTempDirectory("searchdeck-solr-");
    boolean temporary = options.dir == null || options.temporary;
    Files.createDirectories(base);

    // ZooKeeper listens where Solr's own embedded one would: the first node's port + 1000.
    Path cloud = base.resolve("cloud");
    ZkTestServer zk =
        new ZkTestServer(
            cloud.resolve("zookeeper"), options.port == 0 ? 0 : options.port + 1000);
    zk.run();
    if (options.security != null) {
      try (SolrZkClient client =
          new SolrZkClient.Builder()
              .withUrl(zk.getZkHost())
              .withTimeout(30, TimeUnit.SECONDS)
              .build()) {
        client.makePath("/solr/security.json", Files.readAllBytes(options.security), true);
      }
    }
    MiniSolrCloudCluster cluster =
        new MiniSolrCloudCluster(
            0,
            cloud,
            MiniSolrCloudCluster.DEFAULT_CLOUD_SOLR_XML,
            JettyConfig.builder().build(),
            zk,
            false);
    for (Map.Entry<String, Path> configset : options.configsets.entrySet()) {
      cluster.uploadConfigSet(configset.getValue(), configset.getKey());
    }
    SolrCloudLauncher launcher = new SolrCloudLauncher(cluster, options.port);
    Runtime.getRuntime()
        .addShutdownHook(new Thread(() -> launcher.shutdown(base, temporary), "searchdeck-stop"));

    for (int i = 0; i < options.nodes; i++) launcher.addNode();
    HttpServer control = launcher.controlServer();

    String zkAddress = zk.getZkAddress();
    String ready =
        "{\"zk\":"
            + json(zkAddress)
            + ",\"control\":"
            + json("http://127.0.0.1:" + control.getAddress().getPort())
            + ",\"nodes\":"
            + launcher.nodesJson()
            + "}";
    System.out.println("ready " + ready);
    System.out.flush();

    if (options.watchPid > 0) {
      ProcessHandle.of(options.watchPid).ifPresent(p -> p.onExit().join());
    } else {
      // Until standard input closes: the parent went away, or a person pressed Ctrl-D.
      InputStream in = System.in;
      while (in.read() != -1) {
        // Lines typed are ignored.
      }
    }
    System.exit(0);
  }

  private synchronized Node addNode() throws Exception {
    String name = "node" + (nodes.size() + 1);
    Node node = new Node(name, portFor());
    node.jetty =
        cluster.startJettySolrRunner(
            name, CONTEXT, JettyConfig.builder().setPort(node.port).build());
    cluster.waitForNode(node.jetty, 60);
    node.running = true;
    nodes.put(name, node);
    return node;
  }

  private int portFor() throws IOException {
    if (nextPort == 0) {
      try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
        return socket.getLocalPort();
      }
    }
    return nextPort++;
  }

  private synchronized void stop(Node node) throws Exception {
    if (!node.running) return;
    cluster.stopJettySolrRunner(node.jetty);
    cluster.waitForJettyToStop(node.jetty);
    node.running = false;
  }

  private synchronized void start(Node node) throws Exception {
    if (node.running) return;
    cluster.startJettySolrRunner(node.jetty, true);
    cluster.waitForNode(node.jetty, 60);
    node.running = true;
  }

  private HttpServer controlServer() throws IOException {
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(Executors.newSingleThreadExecutor());
    server.createContext("/nodes", this::control);
    server.start();
    return server;
  }

  private void control(HttpExchange exchange) throws IOException {
    try (exchange) {
      String[] parts = exchange.getRequestURI().getPath().split("/");
      String method = exchange.getRequestMethod();
      int status = 200;
      try {
        if (parts.length == 2 && method.equals("POST")) {
          addNode();
        } else if (parts.length == 4 && method.equals("POST")) {
          Node node = nodes.get(parts[2]);
          if (node == null) status = 404;
          else if (parts[3].equals("stop")) stop(node);
          else if (parts[3].equals("start")) start(node);
          else status = 404;
        } else if (!(parts.length == 2 && method.equals("GET"))) {
          status = 404;
        }
      } catch (Exception e) {
        e.printStackTrace();
        status = 500;
      }
      byte[] body = nodesJson().getBytes(StandardCharsets.UTF_8);
      exchange.getResponseHeaders().set("content-type", "application/json");
      exchange.sendResponseHeaders(status, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  private synchronized String nodesJson() {
    List<String> items = new ArrayList<>();
    for (Node node : nodes.values()) {
      items.add(
          "{\"name\":"
              + json(node.name)
              + ",\"url\":"
              + json("http://127.0.0.1:" + node.port + CONTEXT)
              + ",\"nodeName\":"
              + json("127.0.0.1:" + node.port + "_solr")
              + ",\"running\":"
              + node.running
              + "}");
    }
    return "[" + String.join(",", items) + "]";
  }

  private void shutdown(Path base, boolean temporary) {
    try {
      cluster.shutdown();
      cluster.getZkServer().shutdown();
    } catch (Exception e) {
      e.printStackTrace();
    }
    if (temporary) {
      try (Stream<Path> paths = Files.walk(base)) {
        paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
      } catch (IOException e) {
        // Left for the system's temporary-file clean-up.
      }
    }
  }

  private static String json(String text) {
    StringBuilder out = new StringBuilder("\"");
    for (char c : text.toCharArray()) {
      if (c == '"' || c == '\\') out.append('\\');
      out.append(c);
    }
    return out.append('"').toString();
  }

  private static final class Options {
    int port = 0;
    int nodes = 2;
    Path security;
    Path dir;
    long watchPid;
    boolean temporary;
    final Map<String, Path> configsets = new LinkedHashMap<>();

    static Options parse(String[] args) {
      Options options = new Options();
      for (int i = 0; i < args.length; i++) {
        if (args[i].equals("--temporary")) {
          options.temporary = true;
          continue;
        }
        String value = i + 1 < args.length ? args[i + 1] : null;
        if (value == null) throw new IllegalArgumentException(args[i] + " needs a value");
        switch (args[i++]) {
          case "--port" -> options.port = Integer.parseInt(value);
          case "--nodes" -> options.nodes = Integer.parseInt(value);
          case "--security" -> options.security = Path.of(value);
          case "--dir" -> options.dir = Path.of(value);
          case "--watch-pid" -> options.watchPid = Long.parseLong(value);
          case "--configset" -> {
            int eq = value.indexOf('=');
            options.configsets.put(value.substring(0, eq), Path.of(value.substring(eq + 1)));
          }
          default -> throw new IllegalArgumentException("unknown option " + args[i - 1]);
        }
      }
      return options;
    }
  }
}

package io.txlock.bench;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The bench's command line: {@code java -jar lock-bench.jar [options]}. Runs the scenarios on the chosen
 * backends and strategies, prints a table, optionally writes an HTML and JSON report, and exits with 0 if the
 * checker found every run safe, 1 if it did not (whatever else failed), 2 for bad options, 3 if a backend could not be
 * used or a txlock run proved nothing (no operation finished in its measured window, or most of them timed out or failed).
 */
@Command(name = "lock-bench", mixinStandardHelpOptions = true, sortOptions = false, usageHelpWidth = 110,
        versionProvider = LockBench.Version.class,
        description = {"A simulated cluster that proves txlock's locks with a checker and measures them against the raw"
                + " floor of the same backend.", "Defaults need nothing installed: embedded H2, every strategy, every scenario."},
        footer = {"", "Exit status: 0 every run passed the checker; 1 the checker found a violation (whatever else failed);"
                + " 2 bad options; 3 a backend could not be used, or a txlock run proved nothing (no operation in its measured"
                + " window, or more timed out or failed than finished)."})
public final class LockBench implements Callable<Integer> {

    @Option(names = {"-b", "--backend"}, split = ",", paramLabel = "NAME",
            description = "h2 (default), postgresql, mariadb, mysql, redis, zookeeper, etcd, none (a deliberately broken lock);"
                    + " comma-separated")
    List<String> backends = new ArrayList<>(List.of("h2"));

    @Option(names = {"-s", "--strategy"}, split = ",", paramLabel = "NAME",
            description = "JDBC: SELECT_FOR_UPDATE, OPTIMISTIC_VERSION, UNIQUE_INSERT, ADVISORY (not on H2); comma-separated;"
                    + " default: all the backend offers")
    List<String> strategies = new ArrayList<>();

    @Option(names = "--scenarios", split = ",", paramLabel = "ID",
            description = "orders, counter, keys, handoff; comma-separated; default: all")
    List<String> scenarios = new ArrayList<>(List.of("orders", "counter", "keys", "handoff"));

    @Option(names = {"-d", "--duration"}, paramLabel = "TIME", converter = DurationConverter.class,
            description = "measured window of each run (default: ${DEFAULT-VALUE})", defaultValue = "2s")
    Duration duration;

    @Option(names = "--warmup", paramLabel = "TIME", converter = DurationConverter.class,
            description = "warm-up before each measured window, checked but not measured (default: ${DEFAULT-VALUE})", defaultValue = "3s")
    Duration warmup;

    @Option(names = "--jit-warmup", negatable = true, defaultValue = "true", fallbackValue = "true",
            description = "before measuring a backend, run every scenario once briefly for every strategy, unmeasured (default: on; --no-jit-warmup skips it)")
    boolean jitWarmup;

    @Option(names = {"-w", "--workers"}, description = "workers of the counter and keys scenarios (default: ${DEFAULT-VALUE})",
            defaultValue = "8")
    int workers;

    @Option(names = "--handoff-workers", description = "workers on one name in the handoff scenario (default: ${DEFAULT-VALUE})",
            defaultValue = "8")
    int handoffWorkers;

    @Option(names = {"-c", "--clients"}, description = "concurrent clients of the orders scenario (default: ${DEFAULT-VALUE})",
            defaultValue = "64")
    int clients;

    @Option(names = {"-k", "--keys"}, description = "lock names of the keys scenario (default: ${DEFAULT-VALUE})", defaultValue = "1000")
    int keys;

    @Option(names = "--duplicates", description = "share of order submissions repeating a recent order, 0 to 1 (default: ${DEFAULT-VALUE})",
            defaultValue = "0.3")
    double duplicates;

    @Option(names = "--hold", paramLabel = "TIME", converter = DurationConverter.class,
            description = "time spent inside each critical section (default: ${DEFAULT-VALUE})", defaultValue = "0ms")
    Duration hold;

    @Option(names = "--nodes", description = "lock managers the thread workers are spread over; 0: one per worker (default: ${DEFAULT-VALUE})",
            defaultValue = "0")
    int nodes;

    @Option(names = {"-p", "--processes"},
            description = "run the lock scenarios' workers in this many separate worker JVMs instead of threads (default: ${DEFAULT-VALUE})",
            defaultValue = "0")
    int processes;

    @Option(names = "--kill-holder",
            description = "with --processes: halfway through each lock scenario, kill -9 a worker JVM while it holds a lock and report the recovery")
    boolean killHolder;

    @Option(names = "--wait", paramLabel = "TIME", converter = DurationConverter.class,
            description = "how long an acquire may wait (default: ${DEFAULT-VALUE})", defaultValue = "30s")
    Duration wait;

    @Option(names = "--lease", paramLabel = "TIME", converter = DurationConverter.class,
            description = "lease of LEASE-scoped locks, renewed while the holder lives; a killed holder's lock outlives it by at most this"
                    + " (default: ${DEFAULT-VALUE})", defaultValue = "10s")
    Duration lease;

    @Option(names = "--retries", description = "retries of an order submission after a deadlock or lock wait timeout (default: ${DEFAULT-VALUE})",
            defaultValue = "3")
    int retries;

    @Option(names = "--jdbc-url", paramLabel = "URL", description = "JDBC URL of the one JDBC backend given (default: the local server's test database)")
    String jdbcUrl;

    @Option(names = "--user", description = "database user of the one JDBC backend given")
    String user;

    @Option(names = "--password", description = "database password of the one JDBC backend given")
    String password;

    @Option(names = "--redis", paramLabel = "HOST:PORT", description = "Redis master (default: 127.0.0.1:6379)")
    String redis;

    @Option(names = "--zookeeper", paramLabel = "CONNECT",
            description = "ZooKeeper connect string, e.g. 127.0.0.1:2181 (default: an embedded ZooKeeper server in this JVM)")
    String zookeeper;

    @Option(names = "--etcd", paramLabel = "URL[,URL...]",
            description = "etcd client URLs, e.g. http://127.0.0.1:2379 (default: a private etcd server started by the bench)")
    String etcd;

    @Option(names = {"-r", "--report"}, paramLabel = "DIR", description = "write report.html, results.json and report.md (the README's tables) into this folder")
    Path report;

    private final PrintStream out;
    private final PrintStream err;
    private final String[] args;

    LockBench(PrintStream out, PrintStream err, String[] args) {
        this.out = out;
        this.err = err;
        this.args = args;
    }

    /**
     * @param args the command line
     */
    public static void main(String[] args) {
        System.exit(execute(args, System.out, System.err));
    }

    /**
     * @param args the command line
     * @param out where the table goes
     * @param err where progress and errors go
     * @return the exit status
     */
    static int execute(String[] args, PrintStream out, PrintStream err) {
        if (args.length > 0 && "admin".equals(args[0])) {
            return LockAdminCommand.execute(java.util.Arrays.copyOfRange(args, 1, args.length), out, err);
        }
        CommandLine cli = new CommandLine(new LockBench(out, err, args));
        cli.setOut(new java.io.PrintWriter(out, true));
        cli.setErr(new java.io.PrintWriter(err, true));
        return cli.execute(args);
    }

    @Override
    public Integer call() throws Exception {
        BenchConfig config;
        try {
            config = config();
        } catch (IllegalArgumentException e) {
            err.println("lock-bench: " + e.getMessage());
            return 2;
        }
        BenchReport result;
        try (Progress progress = new Progress(err, System.console() != null)) {
            result = BenchRun.run(config, "java -jar lock-bench.jar " + String.join(" ", redacted(args)), progress);
        }
        ConsoleTable.print(result, out);
        if (report != null) {
            out.println("report: " + HtmlReport.write(result, report).toAbsolutePath());
        }
        if (!result.safe()) {
            return 1;
        }
        return result.errors().isEmpty() ? 0 : 3;
    }

    BenchConfig config() {
        List<BackendSpec> specs = new ArrayList<>();
        List<BackendKind> kinds = backends.stream().map(BackendKind::parse).distinct().toList();
        long jdbcKinds = kinds.stream().filter(BackendKind::isJdbc).count();
        if ((jdbcUrl != null || user != null || password != null) && jdbcKinds != 1) {
            throw new IllegalArgumentException("--jdbc-url, --user and --password need exactly one JDBC backend in --backend"
                    + " (got " + jdbcKinds + "); run one backend at a time with its own URL");
        }
        if (redis != null && !kinds.contains(BackendKind.REDIS)) {
            throw new IllegalArgumentException("--redis names the Redis master of the redis backend: add redis to --backend"
                    + " or leave --redis out");
        }
        if (zookeeper != null && !kinds.contains(BackendKind.ZOOKEEPER)) {
            throw new IllegalArgumentException("--zookeeper names the ensemble of the zookeeper backend: add zookeeper to"
                    + " --backend or leave --zookeeper out");
        }
        if (etcd != null && !kinds.contains(BackendKind.ETCD)) {
            throw new IllegalArgumentException("--etcd names the cluster of the etcd backend: add etcd to --backend"
                    + " or leave --etcd out");
        }
        for (BackendKind kind : kinds) {
            BackendSpec spec = kind.isJdbc() ? new BackendSpec(kind, jdbcUrl, user, password == null ? "" : password, null, false)
                    : BackendSpec.defaults(kind);
            if (kind == BackendKind.ZOOKEEPER && zookeeper != null) {
                spec = spec.at(zooKeeperConnect(zookeeper));
            } else if (kind == BackendKind.REDIS && redis != null) {
                spec = spec.at(redisAddress(redis));
            } else if (kind == BackendKind.ETCD && etcd != null) {
                spec = spec.at(etcdEndpoints(etcd));
            }
            specs.add(spec);
        }
        for (String s : strategies) {
            String upper = s.strip().toUpperCase(Locale.ROOT);
            boolean known = upper.equals(UnsafeBackend.STRATEGY) || upper.equals(ZooKeeperBackend.STRATEGY)
                    || upper.equals(RedisBackend.STRATEGY) || upper.equals(EtcdBackend.STRATEGY)
                    || java.util.Arrays.stream(io.txlock.Strategy.values()).anyMatch(x -> x.name().equals(upper));
            if (!known && !upper.equals("ALL")) {
                throw new IllegalArgumentException("unknown strategy '" + s + "': use SELECT_FOR_UPDATE, OPTIMISTIC_VERSION,"
                        + " UNIQUE_INSERT, ADVISORY or all");
            }
        }
        List<String> chosen = strategies.stream().filter(s -> !s.equalsIgnoreCase("all")).toList();
        scenarios.forEach(BenchRun::scenario);
        positive("--workers", workers);
        positive("--handoff-workers", handoffWorkers);
        positive("--clients", clients);
        positive("--keys", keys);
        if (duplicates < 0 || duplicates > 1) {
            throw new IllegalArgumentException("--duplicates must be between 0 and 1, was " + duplicates);
        }
        if (processes < 0 || nodes < 0 || retries < 0) {
            throw new IllegalArgumentException("--processes, --nodes and --retries must not be negative");
        }
        if (killHolder && processes == 0) {
            throw new IllegalArgumentException("--kill-holder needs worker JVMs to kill: add --processes 2 (or more)");
        }
        if (duration.isZero() || duration.isNegative()) {
            throw new IllegalArgumentException("--duration must be positive, was " + duration);
        }
        return new BenchConfig(specs, chosen, scenarios.stream().map(s -> s.strip().toLowerCase(Locale.ROOT)).toList(),
                new Timing(warmup, duration), workers, handoffWorkers, clients, keys, duplicates, hold, nodes, processes,
                killHolder, wait, lease, retries, report, jitWarmup);
    }

    /** A host name, an IPv4 address or a bracketed IPv6 address. */
    private static final String HOST = "(?:\\[[0-9A-Fa-f:.]+\\]|[A-Za-z0-9._-]+)";
    private static final Pattern REDIS_ADDRESS = Pattern.compile(HOST + ":(\\d{1,5})");
    private static final Pattern ZOOKEEPER_SERVER = Pattern.compile(HOST + "(?::(\\d{1,5})?)?");
    private static final Pattern ZOOKEEPER_CHROOT = Pattern.compile("(?:/|(?:/[^/\\s]+)+)?");

    /**
     * @param value the value of {@code --redis}
     * @return the address, checked here so that a typo is a bad option (exit 2), not a backend that cannot be used
     * @throws IllegalArgumentException saying what to write
     */
    static String redisAddress(String value) {
        String v = value.strip();
        Matcher m = REDIS_ADDRESS.matcher(v);
        if (!m.matches() || !validPort(m.group(1))) {
            throw new IllegalArgumentException("--redis must be HOST:PORT with a port from 1 to 65535, e.g. 127.0.0.1:6379;"
                    + " was '" + value + "'");
        }
        return v;
    }

    /**
     * @param value the value of {@code --zookeeper}
     * @return the connect string, checked as ZooKeeper reads it: servers {@code HOST[:PORT]} (port 2181 if none)
     *     separated by commas (ZooKeeper skips empty entries and blanks around them), then an optional chroot path
     * @throws IllegalArgumentException saying what to write
     */
    static String zooKeeperConnect(String value) {
        String v = value.strip();
        int slash = v.indexOf('/');
        String servers = slash < 0 ? v : v.substring(0, slash);
        String chroot = slash < 0 ? "" : v.substring(slash);
        boolean valid = ZOOKEEPER_CHROOT.matcher(chroot).matches();
        int count = 0;
        for (String server : servers.split(",")) {
            if (server.isBlank()) {
                continue;
            }
            Matcher m = ZOOKEEPER_SERVER.matcher(server.strip());
            valid &= m.matches() && (m.group(1) == null || validPort(m.group(1)));
            count++;
        }
        valid &= count > 0;
        if (!valid) {
            throw new IllegalArgumentException("--zookeeper must be a connect string HOST:PORT[,HOST:PORT...][/chroot] with ports"
                    + " from 1 to 65535, e.g. zk1:2181,zk2:2181,zk3:2181; was '" + value + "'");
        }
        return v;
    }

    private static final Pattern ETCD_ENDPOINT = Pattern.compile("https?://" + HOST + ":(\\d{1,5})");

    /**
     * @param value the value of {@code --etcd}
     * @return the client URLs, comma-separated, checked here so that a typo is a bad option (exit 2)
     * @throws IllegalArgumentException saying what to write
     */
    static String etcdEndpoints(String value) {
        List<String> urls = new ArrayList<>();
        boolean valid = true;
        for (String url : value.split(",", -1)) {
            Matcher m = ETCD_ENDPOINT.matcher(url.strip());
            valid &= m.matches() && validPort(m.group(1));
            urls.add(url.strip());
        }
        if (!valid || urls.isEmpty()) {
            throw new IllegalArgumentException("--etcd must be client URLs http://HOST:PORT[,http://HOST:PORT...] with ports"
                    + " from 1 to 65535, e.g. http://127.0.0.1:2379; was '" + value + "'");
        }
        return String.join(",", urls);
    }

    private static boolean validPort(String digits) {
        int port = Integer.parseInt(digits);
        return port >= 1 && port <= 65535;
    }

    private static void positive(String option, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(option + " must be at least 1, was " + value);
        }
    }

    private static List<String> redacted(String[] args) {
        List<String> shown = new ArrayList<>();
        boolean hideNext = false;
        for (String a : args) {
            if (hideNext) {
                shown.add("***");
                hideNext = false;
            } else if (a.startsWith("--password=")) {
                shown.add("--password=***");
            } else {
                shown.add(a);
                hideNext = a.equals("--password");
            }
        }
        return shown;
    }

    /** The version from the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String version = LockBench.class.getPackage().getImplementationVersion();
            return new String[] {"txlock lock-bench " + (version != null ? version : "(development build)")};
        }
    }

    /** Reads "2s", "500ms", "1m", "250us" or an ISO-8601 duration such as "PT2S". */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        private static final Pattern SIMPLE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ms|us|µs|s|m|h)?");

        @Override
        public Duration convert(String value) {
            String v = value.strip().toLowerCase(Locale.ROOT);
            if (v.startsWith("pt")) {
                return Duration.parse(v.toUpperCase(Locale.ROOT));
            }
            Matcher m = SIMPLE.matcher(v);
            if (!m.matches()) {
                throw new CommandLine.TypeConversionException("'" + value + "' is not a duration: write e.g. 2s, 500ms, 1m");
            }
            double n = Double.parseDouble(m.group(1));
            String unit = m.group(2) == null ? "s" : m.group(2);
            double nanos = switch (unit) {
                case "us", "µs" -> n * 1e3;
                case "ms" -> n * 1e6;
                case "m" -> n * 60e9;
                case "h" -> n * 3600e9;
                default -> n * 1e9;
            };
            return Duration.ofNanos(Math.round(nanos));
        }
    }
}

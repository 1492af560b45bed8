package io.txlock.bench;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.jdbc.JdbcClaims;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import javax.sql.DataSource;
import org.HdrHistogram.Histogram;

/**
 * Scenario (1), order idempotency: many clients submit orders, a share of them twice, and each order must be
 * stored exactly once. The seed's way locks the order row that may not exist yet ({@code SELECT … FOR UPDATE} on
 * the order table, then INSERT, in one transaction): under MariaDB's REPEATABLE READ that takes gap locks that
 * serialise and deadlock concurrent submissions; on PostgreSQL and H2 it locks nothing and lets duplicates in.
 * txlock's way takes a TRANSACTION-scoped lock on the order's key inside the order's own transaction, then reads
 * and inserts without locking reads. On a database backend, txlock's idempotency claims ({@link JdbcClaims}, shown
 * as strategy {@value #CLAIM}) run too: one claim of the key in the order's transaction replaces both the lock and
 * the read. A failed submission (deadlock, lock wait timeout) is retried after a short
 * random pause, up to {@code --retries} times.
 */
final class OrdersScenario implements Scenario {

    /** The scenario's id on the command line. */
    static final String ID = "orders";

    /** docs/design.md: at least 3 x the seed's throughput on MariaDB with 64 clients. */
    static final double TARGET = 3.0;
    static final int TARGET_CLIENTS = 64;

    private static final AtomicInteger TABLES = new AtomicInteger();

    /** The strategy name under which the claim way is reported. */
    static final String CLAIM = "CLAIM";

    private enum Way { TXLOCK, CLAIM, SEED, PEER }

    private enum Outcome { STORED, REFUSED }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public String title() {
        return "order idempotency: clients submit orders with duplicates; each must be stored exactly once";
    }

    @Override
    public List<ScenarioResult> run(Backend backend, List<String> strategies, BenchConfig config, Progress progress) throws Exception {
        Measurement seed = measure(backend, strategies.get(0), Way.SEED, null, config, progress);
        List<Measurement> peers = new ArrayList<>();
        for (Peer peer : backend.peers()) {
            peers.add(measure(backend, strategies.get(0), Way.PEER, peer, config, progress));
        }
        List<ScenarioResult> results = new ArrayList<>();
        for (String strategy : strategies) {
            results.add(result(backend, strategy, measure(backend, strategy, Way.TXLOCK, null, config, progress), seed, peers, config));
        }
        if (hasClaims(backend)) {
            results.add(result(backend, CLAIM, measure(backend, strategies.get(0), Way.CLAIM, null, config, progress), seed, peers,
                    config));
        }
        return results;
    }

    private static boolean hasClaims(Backend backend) {
        return backend.kind().isJdbc();
    }

    private ScenarioResult result(Backend backend, String strategy, Measurement txlock, Measurement seed, List<Measurement> peers,
            BenchConfig config) {
        List<String> failures = new ArrayList<>();
        if (!txlock.verdict().passed()) {
            failures.add("txlock: checker " + txlock.verdict().summary());
            txlock.verdict().examples().forEach(e -> failures.add("txlock: " + e));
        }
        if (txlock.count("duplicates") > 0) {
            failures.add("txlock: " + txlock.count("duplicates") + " orders stored more than once");
        }
        if (txlock.count("not stored") > 0) {
            failures.add("txlock: " + txlock.count("not stored") + " orders never stored (every attempt failed)");
        }
        List<Target> targets = new ArrayList<>(List.of(ratio(backend.kind(), config.clients(), txlock, seed), deadlocks(txlock)));
        targets.addAll(PeerComparison.targets(id(), backend.kind(), strategy, txlock, peers));
        List<Measurement> measurements = new ArrayList<>(List.of(txlock, seed));
        measurements.addAll(peers);
        return new ScenarioResult(backend.kind().cliName(), strategy, id(), settings(config), measurements, targets, null, failures);
    }

    /**
     * @param kind the backend
     * @param clients concurrent clients
     * @param txlock txlock's way
     * @param seed the seed's way
     * @return txlock's throughput against the seed's; the target applies to MariaDB (either driver) with at least
     *     {@value #TARGET_CLIENTS} clients, where the seed's gap locks serialise and deadlock
     */
    static Target ratio(BackendKind kind, int clients, Measurement txlock, Measurement seed) {
        boolean applies = (kind == BackendKind.MARIADB || kind == BackendKind.MYSQL) && clients >= TARGET_CLIENTS;
        return Target.ratio("txlock/seed throughput", txlock.throughput() / seed.throughput(), TARGET, true, applies);
    }

    /**
     * @param txlock txlock's way
     * @return docs/design.md's "zero deadlocks": a deadlock under txlock misses it (on every database), without failing the
     *     checker; the submission was retried, and lost or duplicate orders are the checker's
     */
    static Target deadlocks(Measurement txlock) {
        return Target.atMost("txlock deadlocks", txlock.count(SqlFailure.DEADLOCK.countName()), 0);
    }

    private static String settings(BenchConfig config) {
        return config.clients() + " clients (threads on " + config.nodesFor(config.clients()) + " nodes), "
                + Math.round(config.duplicates() * 100) + "% duplicate submissions, up to " + config.retries() + " retries";
    }

    /**
     * @param peer the peer of a {@link Way#PEER} run: its lock is taken before the order's transaction begins and let go
     *     after it has committed, as a lock outside the database must be; null for the other ways
     */
    private Measurement measure(Backend backend, String strategy, Way way, Peer peer, BenchConfig config, Progress progress)
            throws Exception {
        int clients = config.clients();
        int nodes = way == Way.TXLOCK ? config.nodesFor(clients) : 1;
        try (Site site = backend.openSite(strategy, nodes);
                Peer.Nodes peerNodes = peer == null ? null : peer.open(config.nodesFor(clients), peerWorkload(config))) {
            DataSource db = site.transactions().target();
            OrderBook book = OrderBook.create(db, site.dialect(), "orders_" + way.name().toLowerCase(java.util.Locale.ROOT)
                    + "_" + TABLES.incrementAndGet());
            String label = switch (way) {
                case TXLOCK -> " " + strategy + " · orders · txlock";
                case CLAIM -> " " + CLAIM + " · orders · txlock";
                case SEED -> " · orders · seed";
                case PEER -> " · orders · " + peer.name();
            };
            progress.phase(backend.kind().cliName() + label, config.timing().totalNanos());
            JdbcClaims claims = way == Way.CLAIM ? backend.claims(site, config.waitTime()).orElseThrow() : null;
            Run run = new Run(site, book, way, claims, peer, peerNodes, config, progress, backend.kind().isJdbc());
            run.execute();
            return run.measurement(book.rowsPerOrder(db));
        }
    }

    /** The wait and lease of a peer's locks; the peers keep no counters here, orders are counted in the database. */
    private static LockWorkload peerWorkload(BenchConfig config) {
        return new LockWorkload("order", 1, java.time.Duration.ZERO, null, config.waitTime(), config.lease());
    }

    /** One measured run of one way. */
    private static final class Run {
        private final Site site;
        private final OrderBook book;
        private final Way way;
        private final BenchConfig config;
        private final Progress progress;
        private final OrderStream stream;
        private final LockOptions lockOptions;
        private final Queue<CriticalSection> sections = new ConcurrentLinkedQueue<>();
        private final Map<SqlFailure, LongAdder> failures = new EnumMap<>(SqlFailure.class);
        private final LongAdder stored = new LongAdder();
        private final LongAdder refused = new LongAdder();
        private final LongAdder failed = new LongAdder();
        private final LongAdder measuredOps = new LongAdder();
        private final Queue<String> examples = new ConcurrentLinkedQueue<>();
        private final Histogram latency = Latency.histogram();
        private final Histogram acquire = Latency.histogram();
        private final boolean lockInDatabase;
        private final JdbcClaims claims;
        private final Peer peer;
        private final Peer.Nodes peerNodes;
        private Timing.Window window;

        Run(Site site, OrderBook book, Way way, JdbcClaims claims, Peer peer, Peer.Nodes peerNodes, BenchConfig config,
                Progress progress, boolean lockInDatabase) {
            this.lockInDatabase = lockInDatabase;
            this.claims = claims;
            this.peer = peer;
            this.peerNodes = peerNodes;
            this.site = site;
            this.book = book;
            this.way = way;
            this.config = config;
            this.progress = progress;
            this.stream = new OrderStream(config.duplicates());
            this.lockOptions = LockOptions.defaults().withScope(LockScope.TRANSACTION).withWait(config.waitTime());
            for (SqlFailure f : SqlFailure.values()) {
                failures.put(f, new LongAdder());
            }
        }

        void execute() throws InterruptedException {
            long begin = System.nanoTime();
            window = config.timing().window(begin);
            List<Thread> threads = new ArrayList<>();
            for (int i = 0; i < config.clients(); i++) {
                int client = i;
                Thread t = new Thread(() -> client(client), "bench-client-" + i);
                t.setDaemon(true);
                threads.add(t);
            }
            threads.forEach(Thread::start);
            for (Thread t : threads) {
                t.join();
            }
        }

        private void client(int client) {
            SplittableRandom random = new SplittableRandom(client * 0x9E3779B97F4A7C15L + System.nanoTime());
            Histogram mine = Latency.histogram();
            Histogram mineAcquire = Latency.histogram();
            LockManager node = site.nodeOf(client);
            Locker peerLocker;
            try {
                peerLocker = way == Way.PEER ? peerNodes.locker(client) : null;
            } catch (Exception e) {
                failures.get(SqlFailure.OTHER).increment();
                examples.add("could not open " + peer.name() + ": " + e);
                return;
            }
            while (System.nanoTime() < window.to()) {
                long orderNo = stream.next(random);
                long requested = System.nanoTime();
                Outcome outcome = null;
                for (int attempt = 0; attempt <= config.retries() && outcome == null; attempt++) {
                    try {
                        outcome = switch (way) {
                            case TXLOCK -> viaTxlock(client, node, orderNo, mineAcquire);
                            case CLAIM -> viaClaim(client, orderNo, mineAcquire);
                            case SEED -> viaSeed(client, orderNo, mineAcquire);
                            case PEER -> viaPeer(client, peerLocker, orderNo, mineAcquire);
                        };
                    } catch (Exception e) {
                        SqlFailure kind = SqlFailure.of(e);
                        failures.get(kind).increment();
                        if (kind == SqlFailure.OTHER && examples.size() < 5) {
                            examples.add(e.toString());
                        }
                        backOff(random, attempt);
                    }
                }
                long done = System.nanoTime();
                if (outcome == null) {
                    failed.increment();
                    continue;
                }
                (outcome == Outcome.STORED ? stored : refused).increment();
                progress.op();
                if (window.contains(done)) {
                    measuredOps.increment();
                    Latency.record(mine, done - requested);
                }
            }
            synchronized (latency) {
                latency.add(mine);
                acquire.add(mineAcquire);
            }
        }

        /** Before a retry, as an application would: 1 to 5 ms, doubling per attempt, with jitter. */
        private static void backOff(SplittableRandom random, int attempt) {
            long ceiling = 5_000_000L << Math.min(attempt, 6);
            java.util.concurrent.locks.LockSupport.parkNanos(1_000_000 + random.nextLong(ceiling));
        }

        /** txlock's way: a TRANSACTION-scoped lock on the order's key, then a plain read and the insert. */
        private Outcome viaTxlock(int client, LockManager node, long orderNo, Histogram acquired) throws Exception {
            String name = "order:" + orderNo;
            long[] times = new long[3];
            long[] token = {CriticalSection.NO_TOKEN};
            try {
                return site.transactions().inTransaction(c -> {
                    times[0] = System.nanoTime();
                    LockHandle lock = node.acquire(name, lockOptions);
                    times[1] = System.nanoTime();
                    token[0] = lock.fencingToken();
                    try {
                        if (book.exists(c, orderNo)) {
                            return Outcome.REFUSED;
                        }
                        book.insert(c, orderNo, lock.fencingToken());
                        return Outcome.STORED;
                    } finally {
                        times[2] = System.nanoTime();
                    }
                });
            } finally {
                if (times[1] != 0) {
                    record(client, name, token[0], times, acquired);
                }
            }
        }

        /**
         * txlock's claim: one claim of the order's key in the order's transaction; the winner inserts, a duplicate is
         * refused (after waiting for a concurrent claim of the same key to commit or roll back). Only the winner has
         * a critical section, from its claim to its commit.
         */
        private Outcome viaClaim(int client, long orderNo, Histogram claimed) throws Exception {
            String key = "order:" + orderNo;
            long[] times = new long[3];
            try {
                return site.transactions().inTransaction(c -> {
                    times[0] = System.nanoTime();
                    boolean won = claims.claim(key);
                    long after = System.nanoTime();
                    Latency.record(claimed, after - times[0]);
                    if (!won) {
                        return Outcome.REFUSED;
                    }
                    times[1] = after;
                    try {
                        book.insert(c, orderNo, null);
                        return Outcome.STORED;
                    } finally {
                        times[2] = System.nanoTime();
                    }
                });
            } finally {
                if (times[1] != 0) {
                    sections.add(new CriticalSection(client, key, CriticalSection.NO_TOKEN, times[0], times[1], times[2],
                            System.nanoTime()));
                }
            }
        }

        /**
         * A peer's way: its lock on the order's key, then the order's own transaction (a plain read, the insert, the
         * commit), then the unlock: a lock outside the transaction is held until the transaction has committed.
         */
        private Outcome viaPeer(int client, Locker locker, long orderNo, Histogram acquired) throws Exception {
            String name = "order:" + orderNo;
            long[] times = new long[3];
            times[0] = System.nanoTime();
            locker.lock(name);
            times[1] = System.nanoTime();
            try {
                return site.transactions().inTransaction(c -> {
                    if (book.exists(c, orderNo)) {
                        return Outcome.REFUSED;
                    }
                    book.insert(c, orderNo, null);
                    return Outcome.STORED;
                });
            } finally {
                times[2] = System.nanoTime();
                locker.unlock();
                record(client, name, CriticalSection.NO_TOKEN, times, acquired);
            }
        }

        /** The seed's way: SELECT … FOR UPDATE on the order table, INSERT if missing, in one transaction. */
        private Outcome viaSeed(int client, long orderNo, Histogram acquired) throws SQLException {
            long[] times = new long[3];
            try (Connection c = site.transactions().target().getConnection()) {
                c.setAutoCommit(false);
                try {
                    times[0] = System.nanoTime();
                    boolean exists = book.existsForUpdate(c, orderNo);
                    times[1] = System.nanoTime();
                    if (!exists) {
                        book.insert(c, orderNo, null);
                    }
                    times[2] = System.nanoTime();
                    c.commit();
                    return exists ? Outcome.REFUSED : Outcome.STORED;
                } catch (SQLException | RuntimeException e) {
                    rollbackQuietly(c);
                    if (times[1] != 0 && times[2] == 0) {
                        times[2] = System.nanoTime();
                    }
                    throw e;
                } finally {
                    if (times[1] != 0) {
                        record(client, "order:" + orderNo, CriticalSection.NO_TOKEN, times, acquired);
                    }
                    c.setAutoCommit(true);
                }
            }
        }

        private void record(int client, String name, long token, long[] times, Histogram acquired) {
            sections.add(new CriticalSection(client, name, token, times[0], times[1], times[2], System.nanoTime()));
            Latency.record(acquired, times[1] - times[0]);
        }

        private static void rollbackQuietly(Connection c) {
            try {
                c.rollback();
            } catch (SQLException ignored) {
                // the connection is broken; the pool drops it
            }
        }

        Measurement measurement(Map<Long, Integer> rows) {
            long duplicates = 0;
            for (int n : rows.values()) {
                duplicates += Math.max(0, n - 1);
            }
            long notStored = 0;
            for (long n = OrderStream.FIRST; n < stream.end(); n++) {
                if (!rows.containsKey(n)) {
                    notStored++;
                }
            }
            Map<String, Long> counts = new LinkedHashMap<>();
            counts.put("orders", stream.end() - OrderStream.FIRST);
            counts.put("stored", stored.sum());
            counts.put("refused duplicates", refused.sum());
            counts.put("failed submissions", failed.sum());
            counts.put("finished", stored.sum() + refused.sum());
            for (SqlFailure f : SqlFailure.values()) {
                counts.put(f.countName(), failures.get(f).sum());
            }
            counts.put("duplicates", duplicates);
            counts.put("not stored", notStored);
            List<String> notes = new ArrayList<>();
            examples.forEach(e -> notes.add("error: " + e));
            Checker.Verdict verdict = Checker.check(new ArrayList<>(sections));
            if (way == Way.SEED && !verdict.passed()) {
                notes.add("SELECT … FOR UPDATE on a missing order row let " + verdict.overlaps() + " submissions in while another"
                        + " submission of the same order was inside: on PostgreSQL and H2 it locks nothing; under InnoDB both take"
                        + " gap locks, which do not exclude each other, and then deadlock on INSERT");
            }
            double seconds = window.seconds();
            String describe = switch (way) {
                case TXLOCK -> lockInDatabase
                        ? "TRANSACTION-scoped lock on 'order:<no>' in the order's transaction, plain SELECT, INSERT, COMMIT"
                        : "TRANSACTION-scoped lock on 'order:<no>' bound to the order's transaction (released by the core"
                                + " after COMMIT), plain SELECT, INSERT, COMMIT; orders in embedded H2";
                case CLAIM -> "JdbcClaims.claim('order:<no>') in the order's transaction, INSERT if claimed, COMMIT";
                case SEED -> "SELECT id FROM order WHERE order_no = ? FOR UPDATE, INSERT if missing, COMMIT"
                        + (lockInDatabase ? "" : "; orders in embedded H2");
                case PEER -> peer.describe() + ", around the order's transaction: lock, plain SELECT, INSERT, COMMIT, unlock"
                        + (lockInDatabase ? "" : "; orders in embedded H2");
            };
            if (way == Way.PEER) {
                if (!verdict.passed()) {
                    notes.add(LockScenario.PEER_VIOLATION + "checker " + verdict.summary());
                }
                if (duplicates > 0) {
                    notes.add(LockScenario.PEER_VIOLATION + duplicates + " orders stored more than once");
                }
            }
            String name = switch (way) {
                case SEED -> "seed";
                case PEER -> peer.name();
                default -> "txlock";
            };
            return new Measurement(name, describe, measuredOps.sum(), seconds,
                    measuredOps.sum() / seconds, Latency.of(latency), Latency.of(acquire), Latency.none(), verdict, counts, notes);
        }
    }
}

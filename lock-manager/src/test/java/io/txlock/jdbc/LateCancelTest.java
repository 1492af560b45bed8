package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A cancel of an interrupted waiter's statement that reaches the driver late, after the waiter's statement returned,
 * must not cut short what the connection's next user runs. MariaDB Connector/J's cancel sends {@code KILL QUERY} for
 * the connection whenever anything runs on it, and the provider keeps its statements open beneath the pool's handle,
 * so a late cancel of a kept statement used to kill the next borrower's statement (seen as a holder's release failing
 * with "Query execution was interrupted" in the contract kit). The late arrival is made certain, not hoped for: the
 * cancel waits until the connection's next user runs its statement, or gives up waiting after a few seconds.
 */
class LateCancelTest {

    private static final String NEXT_USER = "next-user-of-the-connection";
    private static final LockOptions PATIENT = LockOptions.defaults().withScope(LockScope.LEASE).withLease(Duration.ofMinutes(2));

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = Strategy.class, names = {"OPTIMISTIC_VERSION", "UNIQUE_INSERT"})
    @Timeout(120)
    void aLateCancelNeverReachesTheConnectionsNextUser(Strategy strategy) throws Exception {
        try (TestDatabase db = JdbcSetup.MARIADB.database(); LateCancels late = new LateCancels(db);
                HikariDataSource pool = poolOfOne(late);
                LockManager firstNode = manager(db.dataSource(), strategy);
                RecordedManager queuedNode = new RecordedManager(db.dataSource(), strategy);
                LockManager waiterNode = manager(pool, strategy)) {
            String name = "late-cancel";
            LockHandle first = firstNode.acquire(name, PATIENT);
            CompletableFuture<LockHandle> queued = CompletableFuture.supplyAsync(() -> queuedNode.manager.acquire(name, PATIENT.withWait(Duration.ofSeconds(60))));
            QueueNodes.awaitTrue(() -> queuedNode.recorded.databaseCalls().stream().anyMatch(sql -> sql.contains("GET_LOCK("))); // heads the queue
            first.release();
            LockHandle held = queued.get(30, TimeUnit.SECONDS); // holds the queue lock: a waiter after it blocks in the database
            CompletableFuture<String> outcome = new CompletableFuture<>();
            Thread waiter = new Thread(() -> {
                try (LockHandle h = waiterNode.acquire(name, PATIENT.withWait(Duration.ofSeconds(2)))) {
                    outcome.complete("granted");
                } catch (RuntimeException e) {
                    outcome.complete(e.getClass().getSimpleName());
                }
            }, "interrupted-waiter");
            waiter.start();
            QueueNodes.awaitTrue(() -> db.lockWaiters() >= 1 || outcome.isDone()); // blocked in the queue's statement
            assertThat(outcome).as("the waiter, blocked in the queue").isNotDone();
            waiter.interrupt();
            assertThat(late.cancelAsked.await(30, TimeUnit.SECONDS)).as("the core asked the driver to cancel").isTrue();
            assertThat(outcome).succeedsWithin(Duration.ofSeconds(60)).isNotEqualTo("granted");

            CompletableFuture<Integer> slept = new CompletableFuture<>();
            Thread next = new Thread(() -> {
                try (Connection c = pool.getConnection(); Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT SLEEP(1)")) {
                    r.next();
                    slept.complete(r.getInt(1));
                } catch (SQLException | RuntimeException e) {
                    slept.completeExceptionally(e);
                }
            }, NEXT_USER);
            next.start();
            assertThat(slept).as("SLEEP answers 1 when a KILL QUERY cut it short").succeedsWithin(Duration.ofSeconds(30)).isEqualTo(0);
            assertThat(late.cancelRan.get()).as("the late cancel reached the driver").isTrue();
            held.release();
        }
    }

    private static LockManager manager(DataSource ds, Strategy strategy) {
        return LockManager.builder(JdbcLockProvider.builder(ds).strategy(strategy).dialect(JdbcDialect.MARIADB)
                .reaperPeriod(Duration.ZERO).build()).build();
    }

    /** A manager whose statements are recorded. */
    private static final class RecordedManager implements AutoCloseable {
        final RecordingDataSource recorded;
        final LockManager manager;

        RecordedManager(DataSource ds, Strategy strategy) {
            recorded = new RecordingDataSource(ds);
            manager = manager(recorded, strategy);
        }

        @Override
        public void close() {
            manager.close();
        }
    }

    private static HikariDataSource poolOfOne(DataSource target) {
        HikariConfig config = new HikariConfig();
        config.setDataSource(target);
        config.setMaximumPoolSize(1);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(30_000);
        config.setPoolName("late-cancel");
        return new HikariDataSource(config);
    }

    /**
     * The test database's connections, whose statements' first cancel is held back until the connection's next user
     * (a thread named {@link #NEXT_USER}) runs {@code SELECT SLEEP(1)} on the server, or for at most 5 s.
     */
    private static final class LateCancels extends DelegatingDataSource implements AutoCloseable {
        final CountDownLatch cancelAsked = new CountDownLatch(1);
        final AtomicBoolean cancelRan = new AtomicBoolean();
        private final CountDownLatch nextUserRuns = new CountDownLatch(1);
        private final TestDatabase db;

        LateCancels(TestDatabase db) {
            super(db.dataSource());
            this.db = db;
        }

        @Override
        public Connection getConnection() throws SQLException {
            return wrap(java.sql.DriverManager.getConnection(db.url(), db.user(), ""));
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            return getConnection();
        }

        private Connection wrap(Connection c) {
            return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class}, (p, m, args) -> {
                Object result = invoke(c, m, args);
                return result instanceof Statement s ? statement(s, m.getReturnType()) : result;
            });
        }

        private Object statement(Statement s, Class<?> type) {
            return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, (p, m, args) -> {
                if (m.getName().equals("cancel") && cancelAsked.getCount() > 0) {
                    cancelAsked.countDown();
                    if (nextUserRuns.await(5, TimeUnit.SECONDS)) {
                        awaitSleeping();
                    }
                    cancelRan.set(true);
                } else if (m.getName().startsWith("execute") && Thread.currentThread().getName().equals(NEXT_USER)) {
                    nextUserRuns.countDown();
                }
                return invoke(s, m, args);
            });
        }

        private void awaitSleeping() throws InterruptedException {
            QueueNodes.awaitTrue(() -> {
                try (Connection c = db.dataSource().getConnection(); Statement s = c.createStatement();
                        ResultSet r = s.executeQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO = 'SELECT SLEEP(1)'")) {
                    r.next();
                    return r.getInt(1) > 0;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
        }

        private static Object invoke(Object target, java.lang.reflect.Method m, Object[] args) throws Throwable {
            try {
                return m.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }

        @Override
        public void close() {
        }
    }
}

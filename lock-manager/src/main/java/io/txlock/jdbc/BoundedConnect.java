package io.txlock.jdbc;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import javax.sql.DataSource;

/**
 * Takes a pooled connection within a bound of the caller's, not the pool's own timeout (HikariCP's
 * {@code connectionTimeout}, 30 s by default): the pool's {@code getConnection} runs on a thread of this class's own,
 * and the caller waits for it at most that long. A connection that arrives after the caller gave up goes straight
 * back to the pool. Threads are made when needed and end after a minute idle.
 */
final class BoundedConnect implements AutoCloseable {

    private final ThreadPoolExecutor threads;

    BoundedConnect(String table) {
        AtomicInteger n = new AtomicInteger();
        this.threads = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(), r -> {
            Thread t = new Thread(r, "txlock-connect-" + table + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * @param pool a pool
     * @return reads the pool's maximum size, which may change while it runs (HikariCP's {@code getMaximumPoolSize()},
     *     looked up once), or 0 where the pool does not report one
     */
    static IntSupplier maximumSize(DataSource pool) {
        MethodHandle getter;
        try {
            java.lang.reflect.Method method = pool.getClass().getMethod("getMaximumPoolSize");
            if (method.getReturnType() != int.class) {
                return () -> 0;
            }
            getter = MethodHandles.publicLookup().unreflect(method).bindTo(pool).asType(MethodType.methodType(int.class));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return () -> 0;
        }
        return () -> {
            try {
                return (int) getter.invokeExact();
            } catch (Throwable e) {
                return 0;
            }
        };
    }

    /**
     * @param maximumSize the pool's {@link #maximumSize}
     * @param heldByLocks connections the provider's locks hold now
     * @param wait what is left of the caller's wait
     * @return how long to wait for a connection: the caller's wait once the locks hold every connection of a pool that
     *     reports its size (HikariCP); else null, for the pool's own timeout (a pool that does not report its size, such
     *     as a container's, is never waited for on a thread of txlock's own)
     */
    static Duration within(IntSupplier maximumSize, int heldByLocks, Duration wait) {
        if (heldByLocks <= 0) {
            return null;
        }
        int size = maximumSize.getAsInt();
        return size > 0 && heldByLocks >= size ? wait : null;
    }

    /**
     * @param dataSource the pool
     * @param wait how long the caller waits at most
     * @return a connection
     * @throws SQLException if the pool failed, the wait ran out (SQLState 08001, naming the pool), or the calling
     *     thread was interrupted (its flag stays set)
     */
    Connection connect(DataSource dataSource, Duration wait) throws SQLException {
        CompletableFuture<Connection> pending = new CompletableFuture<>();
        Future<?> task = threads.submit(() -> {
            try {
                Connection c = JdbcAccess.connect(dataSource);
                if (!pending.complete(c)) {
                    c.close();
                }
            } catch (SQLException | RuntimeException e) {
                pending.completeExceptionally(e);
            }
        });
        Duration bound = wait;
        try {
            return pending.get(bound.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            giveUp(pending, task);
            throw new SQLException("no connection from " + dataSource + " within the " + bound.toMillis()
                    + " ms left of the lock's wait", "08001");
        } catch (InterruptedException e) {
            giveUp(pending, task);
            Thread.currentThread().interrupt();
            throw new SQLException("interrupted while waiting for a connection from " + dataSource, "08001", e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof SQLException s ? s
                    : new SQLException("the datasource failed to hand out a connection: " + e.getCause(), "08001", e.getCause());
        } catch (CancellationException e) {
            throw new SQLException("connection request cancelled", "08001", e);
        }
    }

    /** Whoever comes second closes the connection: this caller, or the thread that got it too late. */
    private static void giveUp(CompletableFuture<Connection> pending, Future<?> task) {
        if (!pending.cancel(false) && !pending.isCompletedExceptionally()) {
            JdbcAccess.closeQuietly(pending.join());
        }
        task.cancel(true);
    }

    @Override
    public void close() {
        threads.shutdownNow();
    }
}

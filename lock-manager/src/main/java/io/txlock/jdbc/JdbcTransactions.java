package io.txlock.jdbc;

import io.txlock.spi.CallerTransaction;
import io.txlock.spi.LocalTransaction;
import io.txlock.spi.TransactionSupport;
import java.io.PrintWriter;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Optional;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * Local JDBC transactions for applications without JTA: {@link io.txlock.LockScope#TRANSACTION}-scoped locks
 * that commit and roll back with the caller's own {@link Connection}.
 *
 * <pre>{@code
 * JdbcTransactions tx = JdbcTransactions.over(dataSource);
 * LockManager locks = LockManager.builder(JdbcLockProvider.builder(tx).build())
 *         .transactions(tx).build();
 * tx.inTransaction(connection -> {
 *     locks.acquire("order:42");          // AUTO scope: held until this transaction ends
 *     insertOrder(connection, order);     // same connection, same transaction as the lock
 *     return null;
 * });                                     // commit (or rollback on an exception) frees the lock
 * }</pre>
 *
 * <p>Inside {@link #inTransaction}, {@link #dataSource()} hands out the transaction's own connection (closing it
 * does nothing), so the lock's SQL and the business SQL are one transaction. Outside, it hands out ordinary
 * connections of the underlying datasource. Transactions do not nest: an inner {@code inTransaction} joins the
 * outer one.
 */
public final class JdbcTransactions implements TransactionSupport {

    /** JDBC work in a transaction. */
    @FunctionalInterface
    public interface Work<T> {
        /**
         * @param connection the transaction's connection; do not commit, roll back or close it
         * @return a result
         * @throws Exception anything: the transaction then rolls back and the exception propagates
         */
        T run(Connection connection) throws Exception;
    }

    private final DataSource target;
    private final ThreadLocal<Local> current = new ThreadLocal<>();
    private final DataSource bound = new BoundDataSource();

    private JdbcTransactions(DataSource target) {
        this.target = target;
    }

    /**
     * @param dataSource the application's datasource
     * @return transactions over it
     */
    public static JdbcTransactions over(DataSource dataSource) {
        if (dataSource == null) {
            throw new IllegalArgumentException("dataSource must not be null");
        }
        return new JdbcTransactions(dataSource);
    }

    /** @return the underlying datasource, whose connections never join these transactions */
    public DataSource target() {
        return target;
    }

    /** @return a datasource that hands out the calling thread's transaction connection while one is open */
    public DataSource dataSource() {
        return bound;
    }

    /**
     * Runs {@code work} in a transaction on one connection: commits if it returns, rolls back if it throws.
     * Locks taken inside in TRANSACTION (or AUTO) scope are freed when the transaction ends.
     *
     * @param work what to do
     * @param <T> the result type
     * @return what {@code work} returned
     * @throws SQLException if the connection could not be opened, committed or rolled back
     * @throws Exception what {@code work} threw, after the rollback
     */
    public <T> T inTransaction(Work<T> work) throws Exception {
        Local outer = current.get();
        if (outer != null) {
            return work.run(outer.view);
        }
        Connection connection = target.getConnection();
        Local tx = new Local(connection);
        boolean committed = false;
        try {
            connection.setAutoCommit(false);
            current.set(tx);
            T result = work.run(tx.view);
            if (tx.isRollbackOnly()) {
                throw new SQLException("the transaction was marked rollback-only (a lock it relied on was lost); rolled back");
            }
            tx.beforeCompletion();
            connection.commit();
            committed = true;
            return result;
        } catch (Exception | Error e) {
            JdbcAccess.rollbackQuietly(connection);
            throw e;
        } finally {
            current.remove();
            try {
                tx.afterCompletion(committed);
            } finally {
                try {
                    connection.setAutoCommit(true);
                } finally {
                    connection.close();
                }
            }
        }
    }

    @Override
    public Optional<CallerTransaction> current() {
        return Optional.ofNullable(current.get());
    }

    @Override
    public String toString() {
        return "local JDBC transactions over " + target;
    }

    private static final class Local extends LocalTransaction {
        final Connection view;

        Local(Connection connection) {
            this.view = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                    uncloseable(connection));
        }
    }

    private static InvocationHandler uncloseable(Connection connection) {
        return (proxy, method, args) -> {
            switch (method.getName()) {
                case "close":
                    return null;
                case "isClosed":
                    return connection.isClosed();
                case "commit", "rollback", "setAutoCommit":
                    if (args == null || args.length == 0 || !(args[0] instanceof java.sql.Savepoint)) {
                        throw new SQLException(method.getName() + " is not allowed inside JdbcTransactions.inTransaction:"
                                + " return normally to commit, throw to roll back");
                    }
                    break;
                default:
                    break;
            }
            try {
                return method.invoke(connection, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
    }

    private final class BoundDataSource implements DataSource {
        @Override
        public Connection getConnection() throws SQLException {
            Local tx = current.get();
            return tx != null ? tx.view : target.getConnection();
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            Local tx = current.get();
            return tx != null ? tx.view : target.getConnection(username, password);
        }

        @Override
        public PrintWriter getLogWriter() throws SQLException {
            return target.getLogWriter();
        }

        @Override
        public void setLogWriter(PrintWriter out) throws SQLException {
            target.setLogWriter(out);
        }

        @Override
        public void setLoginTimeout(int seconds) throws SQLException {
            target.setLoginTimeout(seconds);
        }

        @Override
        public int getLoginTimeout() throws SQLException {
            return target.getLoginTimeout();
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            return target.getParentLogger();
        }

        @Override
        public <T> T unwrap(Class<T> iface) throws SQLException {
            return target.unwrap(iface);
        }

        @Override
        public boolean isWrapperFor(Class<?> iface) throws SQLException {
            return target.isWrapperFor(iface);
        }

        @Override
        public String toString() {
            return "transaction-bound " + target;
        }
    }
}

package io.txlock.jdbc;

import io.txlock.spi.CallerTransaction;
import io.txlock.spi.TransactionSupport;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
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
    private final LocalTransactions<Connection> transactions = new LocalTransactions<>(this::open);
    private final DataSource bound;

    private JdbcTransactions(DataSource target) {
        this.target = target;
        this.bound = new BoundDataSource(target);
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
        return transactions.inTransaction(work::run);
    }

    private LocalTransactions.Resource<Connection> open() throws SQLException {
        return new OnConnection(target.getConnection());
    }

    @Override
    public Optional<CallerTransaction> current() {
        return transactions.current();
    }

    @Override
    public String toString() {
        return "local JDBC transactions over " + target;
    }

    /** A transaction on a connection, which the work sees through a view it cannot close, commit or roll back. */
    private record OnConnection(Connection connection, Connection view) implements LocalTransactions.Resource<Connection> {

        OnConnection(Connection connection) {
            this(connection, (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(),
                    new Class<?>[] {Connection.class}, uncloseable(connection)));
        }

        @Override
        public void begin() throws SQLException {
            connection.setAutoCommit(false);
        }

        @Override
        public boolean rollbackOnly() {
            return false;
        }

        @Override
        public Exception rolledBack(String message) {
            return new SQLException(message);
        }

        @Override
        public void flush() {
        }

        @Override
        public void end(boolean commit) throws SQLException {
            if (commit) {
                connection.commit();
            } else {
                connection.rollback();
            }
        }

        @Override
        public void close() throws SQLException {
            try {
                connection.setAutoCommit(true);
            } finally {
                connection.close();
            }
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

    private final class BoundDataSource extends DelegatingDataSource {

        BoundDataSource(DataSource target) {
            super(target);
        }

        @Override
        public Connection getConnection() throws SQLException {
            Connection view = transactions.currentResource();
            return view != null ? view : target.getConnection();
        }

        @Override
        public Connection getConnection(String username, String password) throws SQLException {
            Connection view = transactions.currentResource();
            return view != null ? view : target.getConnection(username, password);
        }

        @Override
        public String toString() {
            return "transaction-bound " + target;
        }
    }
}

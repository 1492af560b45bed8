package io.txlock.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;

/**
 * A real datasource seen through a recorder: every parameter the provider binds, how many rows each of its
 * transactions deleted before it committed, and every call that goes to the database (a statement run, a commit, a
 * rollback). It changes nothing the database sees.
 */
final class RecordingDataSource extends DelegatingDataSource {

    private final List<Object> parameters = new CopyOnWriteArrayList<>();
    private final List<Integer> deletedPerCommit = new CopyOnWriteArrayList<>();
    private final java.util.concurrent.atomic.AtomicInteger transactionEnds = new java.util.concurrent.atomic.AtomicInteger();
    private final List<String> databaseCalls = new CopyOnWriteArrayList<>();
    private final java.util.concurrent.atomic.AtomicInteger statements = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger results = new java.util.concurrent.atomic.AtomicInteger();
    private final List<String> prepared = new CopyOnWriteArrayList<>();

    RecordingDataSource(DataSource target) {
        super(target);
    }

    /** @return every non-null value bound to a statement so far */
    List<Object> parameters() {
        return List.copyOf(parameters);
    }

    /** @return for each commit of a transaction that deleted rows, how many it deleted, in commit order */
    List<Integer> deletedPerCommit() {
        return List.copyOf(deletedPerCommit);
    }

    /** @return how many statements the provider prepared or created so far */
    int statements() {
        return statements.get();
    }

    /** @return the text of every statement prepared so far ({@code prepareStatement}), in order */
    List<String> prepared() {
        return List.copyOf(prepared);
    }

    /** @return how many results (result sets) the provider read from its prepared statements so far */
    int results() {
        return results.get();
    }

    /** @return how many commits and whole rollbacks the provider sent so far */
    int transactionEnds() {
        return transactionEnds.get();
    }

    /**
     * @return every statement run (its SQL), commit and rollback so far, in order: with a driver that sends each
     *     statement as it is run, the round trips
     */
    List<String> databaseCalls() {
        return List.copyOf(databaseCalls);
    }

    @Override
    public Connection getConnection() throws SQLException {
        return recorded(target.getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return recorded(target.getConnection(username, password));
    }

    private Connection recorded(Connection connection) {
        int[] deleted = {0};
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("unwrap") && args[0] == Connection.class) {
                        return proxy; // statements kept on the connection are recorded too
                    }
                    Object result = invoke(connection, method, args);
                    switch (method.getName()) {
                        case "prepareStatement" -> {
                            statements.incrementAndGet();
                            prepared.add(((String) args[0]).strip());
                            return recorded((PreparedStatement) result, (String) args[0], deleted);
                        }
                        case "createStatement" -> {
                            statements.incrementAndGet();
                            return recorded((Statement) result);
                        }
                        case "commit" -> {
                            databaseCalls.add("COMMIT");
                            transactionEnds.incrementAndGet();
                            if (deleted[0] > 0) {
                                deletedPerCommit.add(deleted[0]);
                            }
                            deleted[0] = 0;
                        }
                        case "rollback" -> {
                            databaseCalls.add(args == null ? "ROLLBACK" : "ROLLBACK TO SAVEPOINT");
                            if (args == null) {
                                transactionEnds.incrementAndGet();
                                deleted[0] = 0;
                            }
                        }
                        default -> {
                        }
                    }
                    return result;
                });
    }

    private PreparedStatement recorded(PreparedStatement statement, String sql, int[] deleted) {
        boolean delete = sql.strip().toUpperCase(Locale.ROOT).startsWith("DELETE");
        return (PreparedStatement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {PreparedStatement.class},
                (proxy, method, args) -> {
                    if (method.getName().startsWith("set") && args != null && args.length >= 2 && args[1] != null) {
                        parameters.add(args[1]);
                    }
                    if (method.getName().startsWith("execute")) {
                        databaseCalls.add(sql.strip());
                    }
                    Object result = invoke(statement, method, args);
                    if (result != null && (method.getName().equals("getResultSet") || method.getName().equals("executeQuery"))) {
                        results.incrementAndGet();
                    }
                    if (delete && method.getName().equals("executeUpdate")) {
                        deleted[0] += (Integer) result;
                    } else if (delete && method.getName().equals("executeBatch")) {
                        for (int n : (int[]) result) {
                            deleted[0] += n == Statement.SUCCESS_NO_INFO ? 1 : Math.max(0, n);
                        }
                    }
                    return result;
                });
    }

    private Statement recorded(Statement statement) {
        return (Statement) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Statement.class},
                (proxy, method, args) -> {
                    if (method.getName().startsWith("execute")) {
                        databaseCalls.add(args == null ? "batch" : String.valueOf(args[0]).strip());
                    }
                    return invoke(statement, method, args);
                });
    }

    private static Object invoke(Object target, Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public String toString() {
        return "recording " + target;
    }
}

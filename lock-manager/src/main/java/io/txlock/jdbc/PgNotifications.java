package io.txlock.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The PostgreSQL driver's notifications ({@code PGConnection.getNotifications(int)}), reached by reflection, as
 * the driver is not a dependency of txlock: where it cannot be reached, heads of a queue look again after pauses.
 */
final class PgNotifications {

    private static final String PG_CONNECTION = "org.postgresql.PGConnection";

    private PgNotifications() {
    }

    /** @return whether {@code c} is a PostgreSQL driver's connection (or wraps one) */
    static boolean available(Connection c) {
        Class<?> pg = pgConnection(c);
        try {
            return pg != null && c.isWrapperFor(pg);
        } catch (SQLException e) {
            return false;
        }
    }

    /**
     * Waits up to {@code millis} for notifications on the channels {@code c} listens on, and takes them.
     *
     * @return whether any came
     */
    static boolean await(Connection c, int millis) throws SQLException {
        Class<?> pg = pgConnection(c);
        try {
            Object connection = c.unwrap(pg);
            Method get = pg.getMethod("getNotifications", int.class);
            Object[] notifications = (Object[]) get.invoke(connection, millis);
            return notifications != null && notifications.length > 0;
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof SQLException sql) {
                throw sql;
            }
            throw new SQLException("could not read notifications: " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new SQLException("could not read notifications: " + e, e);
        }
    }

    private static Class<?> pgConnection(Connection c) {
        for (ClassLoader loader : new ClassLoader[] {c.getClass().getClassLoader(), PgNotifications.class.getClassLoader(),
                Thread.currentThread().getContextClassLoader()}) {
            try {
                return Class.forName(PG_CONNECTION, false, loader);
            } catch (ClassNotFoundException | RuntimeException e) {
                // try the next
            }
        }
        return null;
    }
}

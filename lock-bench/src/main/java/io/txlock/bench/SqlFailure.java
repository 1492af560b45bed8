package io.txlock.bench;

import io.txlock.LockTimeoutException;
import java.sql.SQLException;

/** What kind of failure an order submission met, classified by vendor code first (drivers disagree on SQLStates). */
enum SqlFailure {
    /** The database picked the transaction as a deadlock victim. */
    DEADLOCK("deadlocks"),
    /** A row-lock wait (or txlock's lock wait) ran out. */
    LOCK_WAIT_TIMEOUT("lock wait timeouts"),
    /** Anything else. */
    OTHER("other errors");

    private final String countName;

    SqlFailure(String countName) {
        this.countName = countName;
    }

    /** @return the name of its count in the report */
    String countName() {
        return countName;
    }

    /**
     * @param failure what a submission threw
     * @return its kind
     */
    static SqlFailure of(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof LockTimeoutException) {
                return LOCK_WAIT_TIMEOUT;
            }
            if (t instanceof SQLException e) {
                SqlFailure kind = of(e);
                if (kind != OTHER) {
                    return kind;
                }
            }
        }
        return OTHER;
    }

    private static SqlFailure of(SQLException e) {
        int code = e.getErrorCode();
        String state = e.getSQLState() == null ? "" : e.getSQLState();
        if (code == 1213 || state.equals("40P01") || (code == 40001 && state.startsWith("40"))) {
            return DEADLOCK;
        }
        if (code == 1205 || code == 1969 || code == 3572 || code == 50200 || state.equals("55P03")) {
            return LOCK_WAIT_TIMEOUT;
        }
        return OTHER;
    }
}

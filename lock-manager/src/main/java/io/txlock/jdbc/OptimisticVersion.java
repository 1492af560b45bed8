package io.txlock.jdbc;

import io.txlock.spi.Attempt;
import io.txlock.spi.LockRequest;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * {@link io.txlock.Strategy#OPTIMISTIC_VERSION}: read the row's version, then compare-and-set
 * {@code UPDATE … WHERE name = ? AND version = ? AND (state = 'FREE' OR expires_at < now)}. A missing row is
 * granted by inserting it. Release sets the row FREE; the row stays for the next holder.
 */
final class OptimisticVersion extends RowLeaseStrategy {

    OptimisticVersion(JdbcAccess db) {
        super(db);
    }

    @Override
    Attempt acquireRow(Connection c, Statements st, LockRequest r) throws SQLException {
        Statements.RowState row = st.readState(c, r);
        if (row == null) {
            OptionalLong token = insertHeld(c, st, r);
            return token.isPresent() ? granted(c, st, r, token.getAsLong()) : Attempt.held();
        }
        if (row.held() && !row.expired()) {
            return heldUntil(row);
        }
        OptionalLong token = st.tokened(c, st.casGrant(r.maxBlock()), r.owner().host(), r.owner().id(), r.lease().toMillis(), r.name(), row.version());
        return token.isPresent() ? granted(c, st, r, token.getAsLong()) : Attempt.held();
    }

    @Override
    int releaseRow(Connection c, Statements st, JdbcGrant g) throws SQLException {
        return Statements.update(c, st.free(), g.name(), g.fencingToken(), g.ownerId());
    }
}

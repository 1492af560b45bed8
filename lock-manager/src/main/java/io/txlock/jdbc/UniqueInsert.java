package io.txlock.jdbc;

import io.txlock.spi.Attempt;
import io.txlock.spi.LockRequest;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * {@link io.txlock.Strategy#UNIQUE_INSERT}: insert the holder's row; the unique key on {@code name} refuses a
 * second holder. A row whose lease ran out is taken over atomically ({@code UPDATE … WHERE expires_at < now}).
 * Release deletes the row.
 */
final class UniqueInsert extends RowLeaseStrategy {

    UniqueInsert(JdbcAccess db) {
        super(db);
    }

    @Override
    Attempt acquireRow(Connection c, Statements st, LockRequest r) throws SQLException {
        OptionalLong token;
        if (!st.locksBeforeReading(r.transactional())) {
            token = insertHeld(c, st, r);
            if (token.isPresent()) {
                return granted(c, st, r, token.getAsLong());
            }
        }
        Statements.RowState row = st.readState(c, r);
        if (row == null) {
            return Attempt.heldFor(Duration.ZERO);
        }
        if (row.held() && !row.expired()) {
            return heldUntil(row);
        }
        token = st.tokened(c, st.takeOver(r.maxBlock()), r.owner().host(), r.owner().id(), r.lease().toMillis(), r.name());
        return token.isPresent() ? granted(c, st, r, token.getAsLong()) : Attempt.held();
    }

    @Override
    int releaseRow(Connection c, Statements st, JdbcGrant g) throws SQLException {
        return Statements.update(c, st.delete(), g.name(), g.fencingToken(), g.ownerId());
    }
}

package io.txlock.jdbc;

import io.txlock.spi.Attempt;
import io.txlock.spi.LockRequest;
import java.sql.SQLException;
import java.util.OptionalLong;

/**
 * {@link io.txlock.Strategy#OPTIMISTIC_VERSION}: read the row's version, then compare-and-set
 * {@code UPDATE … WHERE name = ? AND version = ? AND (state = 'FREE' OR expires_at < now)}. A missing row is
 * granted by inserting it. Release sets the row FREE; the row stays for the next holder.
 */
final class OptimisticVersion extends RowLease {

    @Override
    Attempt acquireRow(SqlSession s, Statements st, LockRequest r, Grants grants) throws SQLException {
        Statements.RowState row = st.readState(s, r);
        if (row == null) {
            OptionalLong token = insertHeld(s, st, r);
            return token.isPresent() ? granted(s, st, r, token.getAsLong(), grants) : Attempt.held();
        }
        if (row.held() && !row.expired()) {
            return heldUntil(row);
        }
        OptionalLong token = st.tokened(s, st.casGrant(r.maxBlock()), r.owner().host(), r.owner().id(), r.lease().toMillis(),
                r.name(), row.version());
        return token.isPresent() ? granted(s, st, r, token.getAsLong(), grants) : Attempt.held();
    }

    @Override
    String releaseRow(Statements st) {
        return st.free();
    }
}

package io.txlock.jdbc;

import io.txlock.spi.Attempt;
import io.txlock.spi.LockRequest;
import java.sql.SQLException;
import java.util.OptionalLong;

/**
 * {@link io.txlock.Strategy#OPTIMISTIC_VERSION}: one compare-and-set
 * {@code UPDATE … SET version = <new token> … WHERE name = ? AND (state = 'FREE' OR expires_at < now)} grants the
 * row, without reading it first; only when it changed nothing is the row read, to tell a missing row (granted by
 * inserting it) from a held one. Release sets the row FREE; the row stays for the next holder.
 */
final class OptimisticVersion extends RowLease {

    @Override
    Attempt acquireRow(SqlSession s, Statements st, LockRequest r, Grants grants) throws SQLException {
        if (!st.locksBeforeReading(r.transactional())) {
            OptionalLong token = st.takeOverGrant(s, r);
            if (token.isPresent()) {
                return granted(r, token, grants);
            }
        }
        Statements.RowState row = st.readState(s, r);
        if (row == null) {
            return granted(r, st.insertGrant(s, r), grants);
        }
        if (row.held() && !row.expired()) {
            return heldUntil(row);
        }
        return granted(r, st.takeOverGrant(s, r), grants);
    }

    @Override
    String releaseRow(Statements st) {
        return st.free();
    }
}

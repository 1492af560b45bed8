package io.txlock.jdbc;

import io.txlock.spi.Attempt;
import io.txlock.spi.LockRequest;
import java.sql.SQLException;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * {@link io.txlock.Strategy#UNIQUE_INSERT}: insert the holder's row; the unique key on {@code name} refuses a
 * second holder. A row whose lease ran out is taken over atomically ({@code UPDATE … WHERE expires_at < now}).
 * Release deletes the row.
 */
final class UniqueInsert extends RowLease {

    @Override
    Attempt acquireRow(SqlSession s, Statements st, LockRequest r, Grants grants) throws SQLException {
        if (!st.locksBeforeReading(r.transactional())) {
            OptionalLong token = st.insertGrant(s, r);
            if (token.isPresent()) {
                return granted(r, token, grants);
            }
        }
        Statements.RowState row = st.readState(s, r);
        if (row == null) {
            return Attempt.heldFor(Duration.ZERO);
        }
        if (row.held() && !row.expired()) {
            return heldUntil(row);
        }
        return granted(r, st.takeOverGrant(s, r), grants);
    }

    @Override
    String releaseRow(Statements st) {
        return st.delete();
    }
}

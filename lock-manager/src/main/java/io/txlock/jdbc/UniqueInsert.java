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
        OptionalLong token;
        if (!st.locksBeforeReading(r.transactional())) {
            token = insertHeld(s, st, r);
            if (token.isPresent()) {
                return granted(s, st, r, token.getAsLong(), grants);
            }
        }
        Statements.RowState row = st.readState(s, r);
        if (row == null) {
            return Attempt.heldFor(Duration.ZERO);
        }
        if (row.held() && !row.expired()) {
            return heldUntil(row);
        }
        token = st.tokened(s, st.takeOver(r.maxBlock()), r.owner().host(), r.owner().id(), r.lease().toMillis(), r.name());
        return token.isPresent() ? granted(s, st, r, token.getAsLong(), grants) : Attempt.held();
    }

    @Override
    String releaseRow(Statements st) {
        return st.delete();
    }
}

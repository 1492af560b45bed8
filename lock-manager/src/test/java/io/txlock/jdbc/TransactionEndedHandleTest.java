package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockScope;
import io.txlock.Strategy;
import io.txlock.testkit.TestDatabase;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A TRANSACTION-scoped handle outlives its transaction, which freed the lock: closing it then does nothing (as
 * LockHandle.close() promises for a released handle), while an explicit release() says the lock is no longer held.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransactionEndedHandleTest {

    private TestDatabase db;

    @BeforeAll
    void start() {
        db = TestDatabase.create(TestDatabase.Kind.H2).withLockTable("method_lock");
    }

    @AfterAll
    void stop() {
        db.close();
    }

    @ParameterizedTest
    @EnumSource(value = Strategy.class, names = "ADVISORY", mode = EnumSource.Mode.EXCLUDE) // H2 has no advisory locks
    void closingAHandleAfterItsTransactionEndedDoesNothingAndReleasingItSaysWhy(Strategy strategy) throws Exception {
        JdbcTransactions tx = JdbcTransactions.over(db.dataSource());
        try (LockManager locks = LockManager.builder(JdbcLockProvider.builder(tx).strategy(strategy)
                .reaperPeriod(Duration.ZERO).build()).transactions(tx).build()) {
            LockHandle first = tx.inTransaction(c -> locks.acquire("ended:" + strategy));
            LockHandle second = tx.inTransaction(c -> locks.acquire("ended:" + strategy));
            assertThat(first.scope()).isEqualTo(LockScope.TRANSACTION);
            assertThat(first.isValid()).isFalse();

            first.close();
            assertThatThrownBy(second::release).isInstanceOf(LockNotHeldException.class)
                    .hasMessageContaining("transaction ended");
            second.close();
            assertThat(locks.tryAcquire("ended:" + strategy)).isPresent();
        }
    }
}

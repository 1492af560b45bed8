package io.txlock.spring.app;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * An unsynchronised read-modify-write of one row, protected by nothing but a txlock lock held until the transaction
 * commits: two holders at once would lose an update, and a fencing token that went backwards is counted.
 */
@Service
public class CounterService {

    /** The counter's table; {@link #createTable} makes it. */
    public static final String DDL = "CREATE TABLE counter (id INT PRIMARY KEY, counter_value BIGINT NOT NULL,"
            + " last_token BIGINT NOT NULL, backwards BIGINT NOT NULL)";

    private final LockManager locks;
    private final JdbcTemplate jdbc;

    public CounterService(LockManager locks, JdbcTemplate jdbc) {
        this.locks = locks;
        this.jdbc = jdbc;
    }

    @Transactional
    public void increment() {
        LockHandle lock = locks.acquire("counter");             // AUTO scope in a transaction: held until it ends
        long value = jdbc.queryForObject("SELECT counter_value FROM counter WHERE id = 1", Long.class);
        long lastToken = jdbc.queryForObject("SELECT last_token FROM counter WHERE id = 1", Long.class);
        jdbc.update("UPDATE counter SET counter_value = ?, last_token = ?, backwards = backwards + ? WHERE id = 1",
                value + 1, lock.fencingToken(), lock.fencingToken() > lastToken ? 0 : 1);
    }

    public long value() {
        return jdbc.queryForObject("SELECT counter_value FROM counter WHERE id = 1", Long.class);
    }

    public long backwards() {
        return jdbc.queryForObject("SELECT backwards FROM counter WHERE id = 1", Long.class);
    }

    public long lastToken() {
        return jdbc.queryForObject("SELECT last_token FROM counter WHERE id = 1", Long.class);
    }
}

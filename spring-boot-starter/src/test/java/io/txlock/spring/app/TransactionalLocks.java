package io.txlock.spring.app;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockScope;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Propagation;
import org.springframework.transaction.annotation.Transactional;

/** Locks taken in Spring-managed transactions, with a hook to look at them from the inside. */
@Service
public class TransactionalLocks {

    private final LockManager locks;
    private final JdbcTemplate jdbc;

    public TransactionalLocks(LockManager locks, JdbcTemplate jdbc) {
        this.locks = locks;
        this.jdbc = jdbc;
    }

    /** Takes {@code name}, writes a row, runs {@code inside}, and commits. */
    @Transactional
    public LockScope lockAndCommit(String name, Runnable inside) {
        LockHandle lock = locks.acquire(name);
        jdbc.update("INSERT INTO note (text) VALUES (?)", name);
        inside.run();
        return lock.scope();
    }

    /** Takes {@code name}, writes a row, runs {@code inside}, and throws, which rolls back. */
    @Transactional
    public void lockAndRollBack(String name, Runnable inside) {
        locks.acquire(name);
        jdbc.update("INSERT INTO note (text) VALUES (?)", name);
        inside.run();
        throw new IllegalStateException("rolled back on purpose");
    }

    /** Takes {@code outer}, then {@code inner} in a new transaction; runs {@code afterInner} once that committed. */
    @Transactional
    public void nested(String outer, String inner, TransactionalLocks self, Runnable afterInner) {
        locks.acquire(outer);
        self.inNewTransaction(inner);
        afterInner.run();
    }

    @Transactional(propagation = Propagation.REQUIRES_NEW)
    public void inNewTransaction(String name) {
        locks.acquire(name);
    }
}

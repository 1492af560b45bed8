package io.txlock.jpa;

import io.txlock.testkit.TestDatabase;
import jakarta.persistence.EntityManagerFactory;

/**
 * A fresh namespace with the lock table ({@link TestDatabase}) and one entity manager factory over it, for a whole
 * test class: Hibernate boots once per class.
 *
 * @param db the namespace
 * @param factory a RESOURCE_LOCAL factory managing {@link io.txlock.entity.MethodLock}
 */
public record JpaDatabase(TestDatabase db, EntityManagerFactory factory) implements AutoCloseable {

    /**
     * @param kind the server
     * @return a fresh namespace with {@code method_lock} and a factory over it
     */
    public static JpaDatabase create(TestDatabase.Kind kind) {
        TestDatabase db = TestDatabase.create(kind).withLockTable("method_lock");
        try {
            return new JpaDatabase(db, TestPersistenceUnit.methodLock(db.dataSource()));
        } catch (RuntimeException e) {
            db.close();
            throw e;
        }
    }

    @Override
    public void close() {
        try {
            factory.close();
        } finally {
            db.close();
        }
    }

    @Override
    public String toString() {
        return db.toString();
    }
}

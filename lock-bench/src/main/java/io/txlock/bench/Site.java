package io.txlock.bench;

import io.txlock.LockManager;
import io.txlock.jdbc.JdbcDialect;
import io.txlock.jdbc.JdbcTransactions;
import java.util.ArrayList;
import java.util.List;

/**
 * A simulated cluster on one backend: its application nodes (one {@link LockManager} each) and the business
 * database they store orders in, with local transactions over it. Every manager finds its caller's transaction
 * through {@link #transactions()}, so AUTO-scoped locks taken inside {@code transactions().inTransaction(…)} are
 * TRANSACTION-scoped.
 */
public final class Site implements AutoCloseable {

    private final List<LockManager> nodes;
    private final JdbcTransactions transactions;
    private final JdbcDialect dialect;
    private final List<AutoCloseable> resources;

    /**
     * @param nodes the lock managers
     * @param transactions local transactions over the business database
     * @param dialect the business database's SQL dialect
     * @param resources closed after the managers, in order
     */
    public Site(List<LockManager> nodes, JdbcTransactions transactions, JdbcDialect dialect, List<AutoCloseable> resources) {
        this.nodes = List.copyOf(nodes);
        this.transactions = transactions;
        this.dialect = dialect;
        this.resources = new ArrayList<>(resources);
    }

    /** @return the nodes' lock managers */
    public List<LockManager> nodes() {
        return nodes;
    }

    /**
     * @param worker a worker number
     * @return the node that worker runs on: workers are spread round-robin over the nodes
     */
    public LockManager nodeOf(int worker) {
        return nodes.get(worker % nodes.size());
    }

    /** @return local transactions over the business database */
    public JdbcTransactions transactions() {
        return transactions;
    }

    /** @return the business database's dialect */
    public JdbcDialect dialect() {
        return dialect;
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        for (LockManager m : nodes) {
            try {
                m.close();
            } catch (RuntimeException e) {
                failure = e;
            }
        }
        for (AutoCloseable r : resources) {
            try {
                r.close();
            } catch (Exception e) {
                failure = e instanceof RuntimeException re ? re : new IllegalStateException(e);
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}

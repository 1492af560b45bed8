package io.txlock.bench;

import io.txlock.LockManager;
import io.txlock.jdbc.JdbcDialect;
import io.txlock.spi.LockProvider;
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

    /** Gives each node its lock provider. */
    @FunctionalInterface
    interface Providers {
        /**
         * @param node the node's number, from 0
         * @return its lock provider
         * @throws InterruptedException if interrupted while connecting
         */
        LockProvider of(int node) throws InterruptedException;
    }

    /**
     * @param nodes how many nodes
     * @param providers each node's lock provider
     * @param transactions local transactions over the business database, where every manager finds its caller's
     * @param dialect the business database's SQL dialect
     * @param resources closed after the managers, in order; it may grow while {@code providers} runs
     * @return a site of one lock manager a node, its owner host {@code node-<number>}; if one cannot be built, the
     *     managers built before it and the resources are closed
     */
    static Site of(int nodes, Providers providers, JdbcTransactions transactions, JdbcDialect dialect,
            List<AutoCloseable> resources) {
        List<LockManager> managers = new ArrayList<>();
        try {
            for (int i = 0; i < nodes; i++) {
                managers.add(LockManager.builder(providers.of(i)).transactions(transactions).ownerHost("node-" + i).build());
            }
        } catch (InterruptedException | RuntimeException e) {
            try {
                new Site(managers, transactions, dialect, resources).close();
            } catch (RuntimeException closeFailed) {
                e.addSuppressed(closeFailed);
            }
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while connecting", e);
            }
            throw (RuntimeException) e;
        }
        return new Site(managers, transactions, dialect, resources);
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

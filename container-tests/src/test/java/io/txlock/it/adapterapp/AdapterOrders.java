package io.txlock.it.adapterapp;

import io.txlock.LockHandle;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.adapter.LockConnection;
import io.txlock.adapter.LockConnectionFactory;
import jakarta.annotation.Resource;
import jakarta.ejb.ApplicationException;
import jakarta.ejb.Stateless;
import jakarta.ejb.TransactionAttribute;
import jakarta.ejb.TransactionAttributeType;
import jakarta.inject.Inject;
import jakarta.resource.ResourceException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.Jedis;

/** An EJB that locks through the adapter's connection factories, inside its container-managed transactions. */
@Stateless
public class AdapterOrders {

    @Resource(lookup = "java:/txlock/locks")
    LockConnectionFactory locks;

    @Resource(lookup = "java:/txlock/locks-b")
    LockConnectionFactory otherNode;

    @Resource(lookup = "java:/txlock/redis")
    LockConnectionFactory redis;

    @Inject
    OrderRows rows;

    /** What a transaction that waited for the lock read. */
    public record Read(long lockToken, Optional<Long> orderToken) {
    }

    /** The threads the lock manager's work ran on, seen from the application. */
    public record Threads(String caller, String renewedUntilBefore, String renewedUntilAfter, String asyncGrant,
            String lostListener, List<String> txlockThreads) {
    }

    LockConnection connect(Node node) {
        try {
            return switch (node) {
                case A -> locks.getConnection();
                case B -> otherNode.getConnection();
                case REDIS -> redis.getConnection();
            };
        } catch (ResourceException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return the lock manager's instance id behind {@code node}'s connection factory */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public String managerId(Node node) {
        try (LockConnection connection = connect(node)) {
            return connection.instanceId();
        }
    }

    /** Locks the order (AUTO scope: in this transaction), closes the connection, and stores the order. */
    public long place(Node node, String orderNo) {
        LockHandle lock;
        try (LockConnection connection = connect(node)) {
            lock = connection.acquire("order:" + orderNo);
        }
        if (lock.scope() != LockScope.TRANSACTION || !lock.isValid()) {
            throw new IllegalStateException("expected a valid TRANSACTION lock after closing the connection: " + lock);
        }
        rows.insert(orderNo, lock.fencingToken());
        return lock.fencingToken();
    }

    /** Locks and stores the order, then fails: the container rolls back. */
    public void placeAndFail(Node node, String orderNo) {
        place(node, orderNo);
        throw new IllegalStateException("payment declined");
    }

    /** Locks and stores the order, says so, and commits only when allowed to. */
    public long placeAndWait(Node node, String orderNo, CountDownLatch locked, CountDownLatch mayCommit) {
        long token = place(node, orderNo);
        locked.countDown();
        await(mayCommit, "the test to let the transaction commit");
        return token;
    }

    /** Waits up to {@code wait} for the order's lock, then reads the order. */
    public Read lockAndRead(Node node, String orderNo, Duration wait) {
        try (LockConnection connection = connect(node)) {
            LockHandle lock = connection.acquire("order:" + orderNo, LockOptions.defaults().withWait(wait));
            return new Read(lock.fencingToken(), rows.token(orderNo));
        }
    }

    /**
     * Locks the order in this transaction, stores it, and returns once the lock was lost: the commit must fail, and the
     * order must not be stored. On the database a LEASE lock with a lease of 1 s, not renewed, runs out (a
     * TRANSACTION-scoped row lock lives as long as its transaction and cannot be lost before it ends). On Redis the
     * transaction's lock (lease 1 s, renewed) loses its key, as in a failover without persistence, and its next
     * renewal is refused.
     */
    public void placeAndLoseTheLock(Node node, String orderNo) {
        String name = "order:" + orderNo;
        LockHandle lock;
        try (LockConnection connection = connect(node)) {
            lock = connection.acquire(name, LockOptions.defaults().withLease(Duration.ofSeconds(1))
                    .withAutoRenew(node == Node.REDIS).withScope(node == Node.REDIS ? LockScope.AUTO : LockScope.LEASE));
        }
        rows.insert(orderNo, lock.fencingToken());
        if (node == Node.REDIS) {
            try (Jedis redis = new Jedis("127.0.0.1", 6379)) {
                for (String key : redis.keys("*:lock:" + name)) {
                    redis.del(key);
                }
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (lock.isValid()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(lock + " was not lost within 60 s");
            }
            pause();
        }
    }

    /** @return true if nobody holds {@code name} on {@code node} (taken and released at once, outside transactions) */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public boolean isFree(Node node, String name) {
        return isFreeWithin(node, name, Duration.ZERO);
    }

    /** @return true if {@code name} on {@code node} could be taken within {@code wait} (and was released at once) */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public boolean isFreeWithin(Node node, String name, Duration wait) {
        try (LockConnection connection = connect(node)) {
            Optional<LockHandle> lock = connection.tryAcquire(name, LockOptions.defaults().withScope(LockScope.LEASE)
                    .withWait(wait));
            lock.ifPresent(LockHandle::release);
            return lock.isPresent();
        }
    }

    /**
     * A lease renewed in the background, an asynchronous wait on another node, and the listener of a lock whose lease
     * ran out: where did they run?
     */
    @TransactionAttribute(TransactionAttributeType.NOT_SUPPORTED)
    public Threads threads(String prefix) throws Exception {
        try (LockConnection a = connect(Node.A); LockConnection b = connect(Node.B)) {
            LockHandle renewed = a.acquire(prefix + "renewed", LockOptions.defaults().withScope(LockScope.LEASE)
                    .withLease(Duration.ofSeconds(1)));
            Instant before = renewed.expiresAt();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!renewed.expiresAt().isAfter(before) && System.nanoTime() < deadline) {
                pause();
            }
            Instant after = renewed.expiresAt();

            CompletableFuture<String> lostOn = new CompletableFuture<>();
            LockHandle hard = a.acquire(prefix + "hard", LockOptions.defaults().withScope(LockScope.LEASE)
                    .withLease(Duration.ofMillis(300)).withAutoRenew(false));
            hard.onLost(() -> lostOn.complete(Thread.currentThread().getName()));

            LockHandle held = a.acquire(prefix + "async", LockOptions.defaults().withScope(LockScope.LEASE));
            CompletableFuture<String> grantedOn = b.acquireAsync(prefix + "async", LockOptions.defaults()
                    .withScope(LockScope.LEASE).withWait(Duration.ofSeconds(30))).toCompletableFuture()
                    .thenApply(granted -> {
                        String thread = Thread.currentThread().getName();
                        granted.release();
                        return thread;
                    });
            List<String> txlockThreads = txlockThreads();
            held.release();
            String asyncGrant = grantedOn.get(30, TimeUnit.SECONDS);
            String lostListener = lostOn.get(30, TimeUnit.SECONDS);
            renewed.release();
            return new Threads(Thread.currentThread().getName(), before.toString(), after.toString(), asyncGrant,
                    lostListener, txlockThreads);
        }
    }

    /** @return the names of the live threads of this JVM that txlock named */
    List<String> txlockThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(name -> name.startsWith("txlock")).sorted().toList();
    }

    /**
     * One submission of an order, on a node: lock the order number in this transaction, look for the order, store it
     * if it is new; fails after storing if declined.
     *
     * @return true if stored, false if a duplicate of a stored order
     */
    public boolean submit(Node node, String orderNo, boolean declined) {
        try (LockConnection connection = connect(node)) {
            connection.acquire("order:" + orderNo);
        }
        if (rows.count(orderNo) > 0) {
            return false;
        }
        rows.insert(orderNo, 0);
        if (declined) {
            throw new PaymentDeclined();
        }
        return true;
    }

    /** The payment was declined: the submission rolls back. */
    @ApplicationException(rollback = true)
    public static class PaymentDeclined extends RuntimeException {
        private static final long serialVersionUID = 1L;

        /** The one message. */
        public PaymentDeclined() {
            super("payment declined");
        }
    }

    /** A poll's pause: what is polled for (a lease's end, a renewal) is timed by the lock manager, not by the test. */
    private static void pause() {
        try {
            Thread.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static void await(CountDownLatch latch, String what) {
        try {
            if (!latch.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("waited 60 s in vain for " + what);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}

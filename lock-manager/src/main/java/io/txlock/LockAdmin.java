package io.txlock;

import io.txlock.core.LockNames;
import io.txlock.spi.LockAdministration;
import io.txlock.spi.LockProvider;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Operations on a backend's locks, whoever holds them: list the held locks of a name prefix, and force-release a
 * stuck one. Works over a provider of its own (as the {@code lock-bench admin} command does) or over the provider of a
 * running manager.
 *
 * <pre>{@code
 * LockAdmin admin = LockAdmin.over(provider).operator("alice");
 * for (LockInfo lock : admin.list("order:")) {
 *     System.out.println(lock.name() + " token " + lock.fencingToken() + " held by " + lock.ownerId() + " until " + lock.until());
 * }
 * admin.forceRelease("order:42", 1187);   // only while token 1187 still holds it
 * }</pre>
 *
 * <p>A forced release is guarded by the token the operator saw: it never frees a grant made since. Each one, done or
 * refused, is logged to the SLF4J logger {@code io.txlock.audit} (WARN when done, INFO when refused), naming the
 * operator, the lock, the token and the holder. The holder learns of it at its next renewal or check (within a third
 * of its lease): {@link LockHandle#isValid()} turns false, {@code onLost} listeners run, its transaction is marked
 * rollback-only. Until then it may still write: the fencing token is what stops its late writes.
 */
public final class LockAdmin {

    /** The logger of forced releases. */
    public static final String AUDIT_LOGGER = "io.txlock.audit";
    /** How many locks {@link #list(String)} returns at most. */
    public static final int DEFAULT_LIMIT = 1000;

    private static final Logger audit = LoggerFactory.getLogger(AUDIT_LOGGER);

    private final LockProvider provider;
    private final LockAdministration admin;
    private final String operator;

    private LockAdmin(LockProvider provider, LockAdministration admin, String operator) {
        this.provider = provider;
        this.admin = admin;
        this.operator = operator;
    }

    /**
     * @param provider the backend; the admin does not close it
     * @return operations on its locks, by the operating system user running this JVM until {@link #operator} says
     *     otherwise
     * @throws UnsupportedOperationException if the provider offers no {@link LockProvider#administration()}
     */
    public static LockAdmin over(LockProvider provider) {
        if (provider == null) {
            throw new IllegalArgumentException("provider must not be null");
        }
        LockAdministration admin = provider.administration().orElseThrow(() -> new UnsupportedOperationException(
                provider.describe() + " offers no lock administration: txlock's JDBC, Redis, ZooKeeper and etcd providers do"));
        return new LockAdmin(provider, admin, System.getProperty("user.name", "unknown"));
    }

    /**
     * @param operator who acts, as the audit log names them (a user, a ticket)
     * @return an admin acting as {@code operator}
     */
    public LockAdmin operator(String operator) {
        if (operator == null || operator.isBlank()) {
            throw new IllegalArgumentException("operator must name who acts, was '" + operator + "'");
        }
        return new LockAdmin(provider, admin, operator.strip());
    }

    /**
     * @param prefix only names that start with it; {@code ""} for every name
     * @return the first {@value #DEFAULT_LIMIT} held locks by name
     */
    public List<LockInfo> list(String prefix) {
        return list(prefix, DEFAULT_LIMIT);
    }

    /**
     * @param prefix only names that start with it; {@code ""} for every name
     * @param limit the most locks to return, 1 to 100,000
     * @return the held locks, sorted by name; the owner is {@code null} and the token 0 where the backend records no
     *     holder (SELECT_FOR_UPDATE, whose lock is a database row lock)
     * @throws LockBackendException if the backend failed
     */
    public List<LockInfo> list(String prefix, int limit) {
        if (prefix == null || prefix.length() > LockNames.MAX_LENGTH) {
            throw new IllegalArgumentException("prefix must be \"\" (every lock) or the start of a name, at most "
                    + LockNames.MAX_LENGTH + " characters, was " + (prefix == null ? "null" : prefix.length() + " characters"));
        }
        if (limit < 1 || limit > 100_000) {
            throw new IllegalArgumentException("limit must be from 1 to 100000, was " + limit);
        }
        return admin.list(prefix, limit);
    }

    /**
     * Frees a lock held by anyone, only if its grant still has {@code fencingToken}.
     *
     * @param name the lock name
     * @param fencingToken the token of the grant to free, as {@link #list} showed it
     * @return the holder that was freed, as the backend showed it just before
     * @throws LockNotHeldException if the lock is free, or held under another token: nothing was changed
     * @throws UnsupportedOperationException where the backend cannot free another process's lock (the message says
     *     what to do instead)
     * @throws LockBackendException if the backend failed
     */
    public LockInfo forceRelease(String name, long fencingToken) {
        LockNames.validate(name);
        Optional<LockInfo> seen = provider.inspect(name);
        boolean freed;
        try {
            freed = admin.forceRelease(name, fencingToken);
        } catch (UnsupportedOperationException e) {
            audit.info("force-release of lock '{}' token {} by {} refused on {}: {}", name, fencingToken, operator,
                    provider.describe(), e.getMessage());
            throw e;
        }
        if (!freed) {
            String now = seen.map(h -> h.fencingToken() == fencingToken ? "released meanwhile"
                    : "held under token " + h.fencingToken() + " by " + holder(h)).orElse("free");
            audit.info("force-release of lock '{}' token {} by {} refused on {}: the lock is {}", name, fencingToken,
                    operator, provider.describe(), now);
            throw new LockNotHeldException("lock '" + name + "' is not held under token " + fencingToken + " (it is " + now
                    + " on " + provider.describe() + "): nothing was released. List the locks again and use the token shown");
        }
        LockInfo holder = seen.filter(h -> h.fencingToken() == fencingToken)
                .orElse(new LockInfo(name, null, null, fencingToken, null, null, 1));
        audit.warn("force-released lock '{}' token {} held by {} since {} until {}, by {} on {}", name, fencingToken,
                holder(holder), holder.since(), holder.until(), operator, provider.describe());
        return holder;
    }

    private static String holder(LockInfo info) {
        return info.ownerId() == null ? "an unrecorded owner" : info.ownerId() + " on " + info.ownerHost();
    }

    @Override
    public String toString() {
        return "LockAdmin[" + provider.describe() + ", operator " + operator + "]";
    }
}

package io.txlock.spi;

import io.txlock.LockBackendException;
import io.txlock.LockInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * What an operator may do with a backend's locks, whoever holds them: list the held ones, and free one whose holder
 * is stuck. An optional capability of a {@link LockProvider} ({@link LockProvider#administration()}); applications
 * use it through {@link io.txlock.LockAdmin}, which logs every forced release.
 */
public interface LockAdministration {

    /**
     * @param prefix only names that start with it; {@code ""} for every name
     * @param limit the most locks to return: the first ones by name
     * @return the locks held now, sorted by name, each with what the backend records of its holder (a backend that
     *     records no holder reports owner {@code null} and token 0)
     * @throws LockBackendException if the backend failed
     */
    List<LockInfo> list(String prefix, int limit);

    /**
     * Frees a lock only if its current grant still has {@code fencingToken}, in one atomic step of the backend, so it
     * never frees a grant made after the operator looked. The holder finds out at its next renewal or check: its
     * handle turns invalid and its transaction, if any, rollback-only.
     *
     * @param name the lock name
     * @param fencingToken the token of the grant to free, as {@link #list} showed it
     * @return true if it was freed; false if the lock is free or held under another token (nothing changed)
     * @throws UnsupportedOperationException where the backend cannot free another process's lock; the message says
     *     why and what to do instead
     * @throws LockBackendException if the backend failed
     */
    boolean forceRelease(String name, long fencingToken);

    /**
     * For a backend that finds the names first and then reads each lock: the held ones among {@code names}.
     *
     * @param names candidate names, in the order to report them
     * @param limit the most locks to return
     * @param inspect reads one name's lock, empty if it is free
     * @return the first {@code limit} held locks among {@code names}
     */
    static List<LockInfo> held(Iterable<String> names, int limit, Function<String, Optional<LockInfo>> inspect) {
        List<LockInfo> held = new ArrayList<>();
        for (String name : names) {
            if (held.size() == limit) {
                break;
            }
            inspect.apply(name).ifPresent(held::add);
        }
        return held;
    }
}

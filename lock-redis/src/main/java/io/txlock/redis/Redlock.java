package io.txlock.redis;

import io.txlock.LockBackendException;
import io.txlock.LockInfo;
import io.txlock.LockNotHeldException;
import io.txlock.spi.Attempt;
import io.txlock.spi.LockRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lock steps over N independent masters (Redlock): a step succeeds when a majority did it within the
 * lease, less the time it took and a clock-drift allowance. With one master it is exactly the single-node
 * algorithm: one script per step, the majority of one is that master, and no token needs writing back.
 */
final class Redlock implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Redlock.class);
    private static final Duration MAX_LEASE = Duration.ofDays(36_500);

    private final List<RedisNode> nodes;
    private final int quorum;
    private final KeySpace keys;
    private final double clockDriftFactor;
    private final String description;
    private final ExecutorService fanOutThreads;

    Redlock(List<RedisNode> nodes, KeySpace keys, double clockDriftFactor, String description) {
        this.nodes = List.copyOf(nodes);
        this.quorum = nodes.size() / 2 + 1;
        this.keys = keys;
        this.clockDriftFactor = clockDriftFactor;
        this.description = description;
        AtomicInteger threadNumber = new AtomicInteger();
        this.fanOutThreads = nodes.size() == 1 ? null : Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "txlock-redis-quorum-" + threadNumber.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    Attempt tryAcquire(LockRequest request) {
        long start = System.nanoTime();
        long lease = leaseMillis(request.lease());
        String key = keys.lockKey(request.name());
        String owner = LockValue.ownerPart(request.owner());
        List<Outcome<RedisNode.Answer>> answers = fanOut(i -> nodes.get(i).acquire(key, keys.fenceKey(), lease, owner));

        String[] provisional = new String[nodes.size()];
        String best = null;
        long token = Long.MIN_VALUE;
        for (int i = 0; i < provisional.length; i++) {
            RedisNode.Answer answer = answers.get(i).value();
            if (answer != null && answer.granted()) {
                provisional[i] = answer.value();
                long proposed = LockValue.parse(answer.value()).token();
                if (proposed > token) {
                    token = proposed;
                    best = answer.value();
                }
            }
        }
        int granted = (int) Arrays.stream(provisional).filter(v -> v != null).count();
        if (granted >= quorum) {
            Adopted adopted = adopt(request.name(), key, provisional, best, token);
            if (adopted.holders() >= quorum && validityMillis(start, lease) > 0) {
                return Attempt.granted(adopted.grant());
            }
            releaseQuietly(adopted.grant());
        } else if (granted > 0) {
            releaseQuietly(new RedisGrant(request.name(), key, token, asValues(provisional)));
        }
        return notGranted(request.name(), answers);
    }

    /**
     * Writes the highest proposed token back to every node that granted, so that any later majority, which
     * shares a node with this one, proposes a higher token. Not needed where that node proposed it (always so
     * with one node).
     *
     * @return the grant, and on how many nodes it holds its final value
     */
    private Adopted adopt(String name, String key, String[] provisional, String finalValue, long token) {
        List<Outcome<Boolean>> adopted = fanOut(i -> provisional[i] != null
                && (provisional[i].equals(finalValue) || nodes.get(i).adopt(key, keys.fenceKey(), provisional[i], finalValue, token)));
        List<List<String>> values = new ArrayList<>();
        int holding = 0;
        for (int i = 0; i < provisional.length; i++) {
            Outcome<Boolean> outcome = adopted.get(i);
            if (!outcome.ok()) {
                values.add(List.of(provisional[i], finalValue));
            } else if (outcome.value()) {
                values.add(List.of(finalValue));
                holding++;
            } else {
                values.add(List.of());
            }
        }
        return new Adopted(new RedisGrant(name, key, token, values), holding);
    }

    private record Adopted(RedisGrant grant, int holders) {
    }

    private Attempt notGranted(String name, List<Outcome<RedisNode.Answer>> answers) {
        long holderPttl = Long.MAX_VALUE;
        int reachable = 0;
        for (Outcome<RedisNode.Answer> outcome : answers) {
            if (outcome.ok()) {
                reachable++;
                if (!outcome.value().granted() && outcome.value().holderPttl() >= 0) {
                    holderPttl = Math.min(holderPttl, outcome.value().holderPttl());
                }
            }
        }
        if (reachable < quorum) {
            throw unreachable("acquire '" + name + "'", answers);
        }
        return holderPttl == Long.MAX_VALUE ? Attempt.held() : Attempt.heldFor(Duration.ofMillis(holderPttl));
    }

    void renew(RedisGrant g, Duration lease) {
        long start = System.nanoTime();
        long leaseMillis = leaseMillis(lease);
        List<Outcome<Boolean>> renewed = fanOut(i -> !g.values(i).isEmpty() && nodes.get(i).renew(g.key(), leaseMillis, g.values(i)));
        requireMajority("renew", g, renewed);
        if (validityMillis(start, leaseMillis) <= 0) {
            throw new LockBackendException(description + ": renewing " + g + " took longer than its lease of " + lease, null);
        }
    }

    void release(RedisGrant g) {
        String channel = keys.releaseChannel(g.name());
        requireMajority("release", g, fanOut(i -> !g.values(i).isEmpty() && nodes.get(i).release(g.key(), channel, g.values(i))));
    }

    /** Returns if a majority did it; else the grant is not held, or, if some nodes could not answer, unknown. */
    private void requireMajority(String what, RedisGrant grant, List<Outcome<Boolean>> outcomes) {
        int done = (int) outcomes.stream().filter(o -> o.ok() && o.value()).count();
        int unknown = (int) outcomes.stream().filter(o -> !o.ok()).count();
        if (done >= quorum) {
            return;
        }
        if (done + unknown >= quorum) {
            throw unreachable(what + " " + grant, outcomes);
        }
        throw new LockNotHeldException(description + ": cannot " + what + " " + grant + ": "
                + (nodes.size() == 1 ? "its key expired or belongs to another grant"
                        : "only " + done + " of " + nodes.size() + " masters still hold it, " + quorum + " needed"));
    }

    Optional<LockInfo> inspect(String name) {
        String key = keys.lockKey(name);
        List<Outcome<Optional<RedisNode.Stored>>> read = fanOut(i -> nodes.get(i).inspect(key));
        if (read.stream().filter(Outcome::ok).count() < quorum) {
            throw unreachable("inspect '" + name + "'", read);
        }
        Map<String, List<RedisNode.Stored>> byValue = new HashMap<>();
        for (Outcome<Optional<RedisNode.Stored>> outcome : read) {
            if (outcome.ok()) {
                outcome.value().ifPresent(s -> byValue.computeIfAbsent(s.value(), v -> new ArrayList<>()).add(s));
            }
        }
        return byValue.entrySet().stream()
                .filter(e -> e.getValue().size() >= quorum)
                .findFirst()
                .map(e -> info(name, e.getKey(), e.getValue()));
    }

    private LockInfo info(String name, String value, List<RedisNode.Stored> copies) {
        LockValue parsed;
        try {
            parsed = LockValue.parse(value);
        } catch (IllegalArgumentException e) {
            throw new LockBackendException(description + ": key '" + keys.lockKey(name)
                    + "' holds a value txlock did not write; is another application using prefix '" + keys.prefix() + "'?", e);
        }
        Instant until = copies.stream().filter(s -> s.pttl() >= 0).map(s -> Instant.ofEpochMilli(s.serverMillis() + s.pttl()))
                .min(Instant::compareTo).orElse(null);
        return new LockInfo(name, parsed.host(), parsed.ownerId(), parsed.token(), Instant.ofEpochMilli(parsed.sinceMillis()),
                until, 1);
    }

    /** How much of a lease is left after {@code start}, minus the clock drift allowance. */
    private double validityMillis(long start, long leaseMillis) {
        double elapsed = (System.nanoTime() - start) / 1e6;
        return leaseMillis - elapsed - leaseMillis * clockDriftFactor;
    }

    private static long leaseMillis(Duration lease) {
        return lease.compareTo(MAX_LEASE) > 0 ? MAX_LEASE.toMillis() : Math.max(1, lease.toMillis());
    }

    private static List<List<String>> asValues(String[] perNode) {
        return Arrays.stream(perNode).map(v -> v == null ? List.<String>of() : List.of(v)).toList();
    }

    private void releaseQuietly(RedisGrant grant) {
        String channel = keys.releaseChannel(grant.name());
        for (Outcome<Boolean> o : fanOut(i -> !grant.values(i).isEmpty() && nodes.get(i).release(grant.key(), channel, grant.values(i)))) {
            if (!o.ok()) {
                log.debug("could not undo a partial grant of {}; it expires with its lease: {}", grant, o.error().getMessage());
            }
        }
    }

    private LockBackendException unreachable(String what, List<? extends Outcome<?>> outcomes) {
        List<LockBackendException> errors = outcomes.stream().filter(o -> !o.ok()).map(Outcome::error).toList();
        String reasons = errors.stream().map(Throwable::getMessage).collect(Collectors.joining("; "));
        LockBackendException e = new LockBackendException(description + ": could not " + what + ": "
                + (nodes.size() == 1 ? reasons : errors.size() + " of " + nodes.size() + " masters failed: " + reasons),
                errors.isEmpty() ? null : errors.get(0).getCause());
        errors.stream().skip(1).forEach(e::addSuppressed);
        return e;
    }

    /** Runs {@code call(i)} for every node, in parallel when there are several, and collects each result or failure. */
    private <T> List<Outcome<T>> fanOut(IntFunction<T> call) {
        if (nodes.size() == 1) {
            return List.of(Outcome.of(() -> call.apply(0)));
        }
        List<CompletableFuture<Outcome<T>>> others = new ArrayList<>();
        for (int i = 1; i < nodes.size(); i++) {
            int node = i;
            others.add(CompletableFuture.supplyAsync(() -> Outcome.of(() -> call.apply(node)), fanOutThreads));
        }
        List<Outcome<T>> all = new ArrayList<>(nodes.size());
        all.add(Outcome.of(() -> call.apply(0)));
        for (CompletableFuture<Outcome<T>> other : others) {
            try {
                all.add(other.join());
            } catch (CompletionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : e;
            }
        }
        return all;
    }

    /** What one node answered, or why it could not. */
    private record Outcome<T>(T value, LockBackendException error) {
        static <T> Outcome<T> of(Supplier<T> call) {
            try {
                return new Outcome<>(call.get(), null);
            } catch (LockBackendException e) {
                return new Outcome<>(null, e);
            }
        }

        boolean ok() {
            return error == null;
        }
    }

    @Override
    public void close() {
        if (fanOutThreads != null) {
            fanOutThreads.shutdown();
        }
    }
}

package io.txlock.testkit;

import io.txlock.spi.Attempt;
import io.txlock.spi.LockProvider;
import io.txlock.spi.LockRequest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A provider that passes every call to a real provider and records its attempts: who asked, from which thread,
 * when, with what answer, and how many attempts of one name ran at the same time. It shows what the core asks of
 * a backend, without changing any answer.
 */
public final class CountingProvider extends ForwardingProvider {

    /**
     * One attempt.
     *
     * @param name the lock name
     * @param owner the owner id that asked
     * @param thread the thread the attempt ran on
     * @param start {@link System#nanoTime()} when it began
     * @param end {@link System#nanoTime()} when it answered
     * @param granted whether it was granted (false also when it failed)
     */
    public record Call(String name, String owner, String thread, long start, long end, boolean granted) {
    }

    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
    private final Map<String, Integer> mostInFlight = new ConcurrentHashMap<>();

    /** @param delegate the provider that answers */
    public CountingProvider(LockProvider delegate) {
        super(delegate);
    }

    /**
     * @param name a lock name
     * @return its attempts so far, in the order they answered
     */
    public List<Call> attempts(String name) {
        return calls.stream().filter(c -> c.name().equals(name)).toList();
    }

    /**
     * @param name a lock name
     * @return the most attempts of {@code name} that were running at the same time
     */
    public int mostInFlight(String name) {
        return mostInFlight.getOrDefault(name, 0);
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        String name = request.name();
        int running = inFlight.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet();
        mostInFlight.merge(name, running, Math::max);
        long start = System.nanoTime();
        boolean granted = false;
        try {
            Attempt attempt = delegate.tryAcquire(request);
            granted = attempt.isGranted();
            return attempt;
        } finally {
            inFlight.get(name).decrementAndGet();
            calls.add(new Call(name, request.owner().id(), Thread.currentThread().getName(), start, System.nanoTime(), granted));
        }
    }

    @Override
    public String describe() {
        return "counting " + delegate.describe();
    }
}

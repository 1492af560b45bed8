package io.txlock.testkit;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutionException;

/** Assertions and small tools of the contract kit. */
final class KitAssertions {

    private static final Duration PATIENCE = LockContractTest.PATIENCE;
    private static final Duration SLACK = LockContractTest.SLACK;

    private KitAssertions() {
    }

    /** A call that may throw; a returned {@link java.util.concurrent.CompletionStage} is awaited. */
    @FunctionalInterface
    interface ThrowingCall {
        Object call() throws Exception;
    }

    static void assertRefused(ThrowingCall call, Class<? extends Throwable> type, String what, String... mentions) {
        Throwable thrown = null;
        Object result = null;
        try {
            result = call.call();
            if (result instanceof java.util.concurrent.CompletionStage<?> stage) {
                result = stage.toCompletableFuture().get(PATIENCE.toMillis(), MILLISECONDS);
            }
        } catch (ExecutionException e) {
            thrown = e.getCause();
        } catch (Throwable e) {
            thrown = e;
        }
        if (result instanceof LockHandle h) {
            h.release();
        }
        if (thrown == null) {
            fail(what + " was accepted (returned " + result + "); expected " + type.getSimpleName());
        }
        assertThat(thrown).as(what).isInstanceOf(type);
        for (String mention : mentions) {
            assertThat(thrown.getMessage()).as("message refusing %s", what).containsIgnoringCase(mention);
        }
    }

    /** Asserts that {@code manager} cannot take {@code name} now (releasing it at once if it wrongly could). */
    static void assertHeldElsewhere(LockManager manager, String name, String when) {
        Optional<LockHandle> taken = manager.tryAcquire(name);
        if (taken.isPresent()) {
            long token = taken.get().fencingToken();
            taken.get().release();
            fail("%s was granted (token %d) to %s %s", quoted(name), token, manager, when);
        }
    }

    static <T> T inNewThread(String name, java.util.concurrent.Callable<T> call) throws Exception {
        java.util.concurrent.FutureTask<T> task = new java.util.concurrent.FutureTask<>(call);
        Thread thread = new Thread(task, "kit-" + name);
        thread.start();
        try {
            return task.get(PATIENCE.toMillis(), MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception cause) {
                throw cause;
            }
            throw (Error) e.getCause();
        }
    }

    static void assertWaitedAbout(long startNanos, Duration wait, String what) {
        Duration took = Duration.ofNanos(System.nanoTime() - startNanos);
        assertThat(took).as("time %s waited", what).isGreaterThanOrEqualTo(wait).isLessThan(wait.plus(SLACK));
    }

    /** @return {@code start} followed by as many {@code unit}s as make {@code codePoints} code points */
    static String fill(String start, String unit, int codePoints) {
        StringBuilder name = new StringBuilder(start);
        while (name.codePointCount(0, name.length()) < codePoints) {
            name.append(unit);
        }
        return name.toString();
    }

    static String quoted(String name) {
        StringBuilder shown = new StringBuilder("'");
        name.codePoints().forEach(cp -> {
            if (Character.isISOControl(cp)) {
                shown.append(String.format("\\u%04x", cp));
            } else {
                shown.appendCodePoint(cp);
            }
        });
        return shown.append('\'').toString();
    }
}

package io.txlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.spi.Cancellation;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link BlockingCalls}: an attempt may have several cancel registrations open at once (the JDBC provider's statement
 * cancel, and the fair queue's wake-up of a pause around it); a cancel runs each, and the attempt stays watched while
 * any is open.
 */
class BlockingCallsTest {

    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor();
    private final BlockingCalls calls = new BlockingCalls(timers);

    @AfterEach
    void stopTimers() {
        timers.shutdownNow();
    }

    @Test
    void aCancelRunsTheActionOfEveryOpenRegistration() {
        List<String> ran = new CopyOnWriteArrayList<>();
        BlockingCalls.Call call = calls.start(true);
        try (Cancellation.Registration statement = call.onCancel(() -> ran.add("statement"));
                Cancellation.Registration pause = call.onCancel(() -> ran.add("pause"))) {
            calls.cancelAll();
        }
        assertThat(ran).containsExactlyInAnyOrder("statement", "pause");
        assertThat(call.isCancelled()).isTrue();
    }

    @Test
    void anAttemptStaysWatchedWhileOneOfItsRegistrationsIsOpen() {
        List<String> ran = new CopyOnWriteArrayList<>();
        BlockingCalls.Call call = calls.start(true);
        try (Cancellation.Registration statement = call.onCancel(() -> ran.add("statement"))) {
            call.onCancel(() -> ran.add("pause")).close();
            calls.cancelAll();
        }
        assertThat(ran).containsExactly("statement");
    }
}

package io.txlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LeaseTimersTest {

    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final LeaseTimers timers = new LeaseTimers(timer, Runnable::run);

    @AfterEach
    void stop() {
        timer.shutdownNow();
    }

    @Test
    void aTaskScheduledBeforeTheSweepAlreadyPlannedStillRunsFirst() throws InterruptedException {
        List<String> ran = new CopyOnWriteArrayList<>();
        CountDownLatch early = new CountDownLatch(1);
        timers.schedule(() -> ran.add("late"), TimeUnit.HOURS.toNanos(1));
        timers.schedule(() -> {
            ran.add("early");
            early.countDown();
        }, TimeUnit.MILLISECONDS.toNanos(20));

        assertThat(early.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ran).containsExactly("early");
    }

    @Test
    void aCancelledTaskNeverRunsAndOthersDueWithItDo() throws InterruptedException {
        List<String> ran = new CopyOnWriteArrayList<>();
        CountDownLatch done = new CountDownLatch(2);
        LeaseTimers.Due cancelled = timers.schedule(() -> ran.add("cancelled"), TimeUnit.MILLISECONDS.toNanos(30));
        timers.schedule(() -> {
            ran.add("a");
            done.countDown();
        }, TimeUnit.MILLISECONDS.toNanos(30));
        timers.schedule(() -> {
            ran.add("b");
            done.countDown();
        }, TimeUnit.MILLISECONDS.toNanos(60));
        cancelled.cancel();

        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ran).containsExactly("a", "b");
    }

    @Test
    void tasksScheduledFromADueTaskRunToo() throws InterruptedException {
        CountDownLatch chain = new CountDownLatch(5);
        Runnable[] step = new Runnable[1];
        step[0] = () -> {
            chain.countDown();
            if (chain.getCount() > 0) {
                timers.schedule(step[0], TimeUnit.MILLISECONDS.toNanos(5));
            }
        };
        timers.schedule(step[0], 0);

        assertThat(chain.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void manyTasksOfOneDelayAllRunAndNoneRunsTwice() throws InterruptedException {
        int n = 10_000;
        CountDownLatch all = new CountDownLatch(n);
        AtomicInteger runs = new AtomicInteger();
        for (int i = 0; i < n; i++) {
            timers.schedule(() -> {
                runs.incrementAndGet();
                all.countDown();
            }, TimeUnit.MILLISECONDS.toNanos(10 + i % 50));
        }

        assertThat(all.await(30, TimeUnit.SECONDS)).isTrue();
        CountDownLatch after = new CountDownLatch(1);
        timers.schedule(after::countDown, TimeUnit.MILLISECONDS.toNanos(100));
        assertThat(after.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(runs.get()).isEqualTo(n);
    }
}

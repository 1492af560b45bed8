package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link Settle} waits, on real processes, until a busy one has gone quiet, and not for an idle one. */
class SettleTest {

    private static final Duration NEVER_REACHED = Duration.ofSeconds(60);

    @Test
    void aRunWaitsUntilTheServersBusySpellIsOver(@TempDir Path dir) throws Exception {
        Path done = dir.resolve("done");
        Process busy = new ProcessBuilder("sh", "-c",
                "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done; touch '" + done + "'; exec sleep 60").start();
        try {
            Duration waited = Settle.untilQuiet(() -> ProcStat.treeCpuNanos(busy.pid()).orElse(-1), Settle.SPAN, NEVER_REACHED);

            assertThat(done).as("the busy spell ended before the run began").exists();
            assertThat(waited).isLessThan(NEVER_REACHED);
        } finally {
            busy.destroyForcibly().waitFor();
        }
    }

    @Test
    void anIdleServerIsNotWaitedFor() throws Exception {
        Process idle = new ProcessBuilder("sleep", "60").start();
        try {
            Duration waited = Settle.untilQuiet(() -> ProcStat.treeCpuNanos(idle.pid()).orElse(-1), Settle.SPAN, NEVER_REACHED);

            assertThat(waited).isLessThan(NEVER_REACHED);
            assertThat(Files.exists(Path.of("/proc", Long.toString(idle.pid())))).isTrue();
        } finally {
            idle.destroyForcibly().waitFor();
        }
    }

    @Test
    void processesThatCannotBeReadAreNotWaitedFor() throws Exception {
        AtomicInteger reads = new AtomicInteger();

        Settle.untilQuiet(() -> {
            reads.incrementAndGet();
            return -1;
        }, Settle.SPAN, NEVER_REACHED);

        assertThat(reads).as("read once, and not waited on").hasValue(1);
    }
}

package io.txlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.LockTimeoutException;
import io.txlock.testkit.FileLockProvider;
import java.nio.file.Path;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A zero wait means one attempt without waiting, for {@code acquireAsync} as for {@code tryAcquire}. */
class AsyncZeroWaitTest {

    @TempDir
    Path dir;

    @Test
    void asyncAcquireWithZeroWaitGetsAFreeLock() throws Exception {
        try (LockManager locks = LockManager.builder(new FileLockProvider(dir)).build()) {
            LockOptions noWait = LockOptions.defaults().withWait(java.time.Duration.ZERO);
            for (int i = 0; i < 50; i++) {
                LockHandle handle = locks.acquireAsync("free-" + i, noWait).toCompletableFuture().get(30, TimeUnit.SECONDS);
                assertThat(handle.isValid()).as("async grant %d of a free lock with a zero wait", i).isTrue();
                handle.release();
            }
        }
    }

    @Test
    void asyncAcquireWithZeroWaitOfAHeldLockTimesOut() {
        try (LockManager holder = LockManager.builder(new FileLockProvider(dir)).build();
                LockManager other = LockManager.builder(new FileLockProvider(dir)).build();
                LockHandle held = holder.acquire("held")) {
            assertThatThrownBy(() -> other.acquireAsync("held", LockOptions.defaults().withWait(java.time.Duration.ZERO))
                    .toCompletableFuture().get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause().isInstanceOf(LockTimeoutException.class);
            assertThat(held.isValid()).isTrue();
        }
    }
}

package io.txlock.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.arjuna.ats.internal.jta.transaction.arjunacore.TransactionSynchronizationRegistryImple;
import io.txlock.LockHandle;
import io.txlock.LockInfo;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import io.txlock.jta.JtaTransactionSupport;
import io.txlock.testkit.FileLockProvider;
import jakarta.interceptor.InvocationContext;
import jakarta.transaction.RollbackException;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionManager;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@link Locked} interceptor around a call, without a container: real lock managers (the test kit's file
 * provider, two "nodes" on one directory) in Narayana JTA transactions. What the caller gets when the lock ends
 * while the method still runs: the method's own exception always; its result when the lock ended with a
 * transaction that timed out (the transaction reports that); a {@link LockNotHeldException} when a LEASE lock was
 * lost under a method that returned normally.
 */
class LockedInterceptorTest {

    private static final TransactionManager TM = com.arjuna.ats.jta.TransactionManager.transactionManager();

    @TempDir
    Path dir;

    private LockManager node;
    private LockManager otherNode;

    @BeforeEach
    void startNodes() {
        JtaTransactionSupport jta = JtaTransactionSupport.of(new TransactionSynchronizationRegistryImple());
        LockOptions noRenewal = LockOptions.defaults().withAutoRenew(false); // a lease that runs out while the method runs
        node = LockManager.builder(new FileLockProvider(dir)).transactions(jta).defaults(noRenewal).build();
        otherNode = LockManager.builder(new FileLockProvider(dir)).transactions(jta).build();
    }

    @AfterEach
    void stopNodes() throws Exception {
        if (TM.getTransaction() != null) {
            TM.suspend();
        }
        TM.setTransactionTimeout(0);
        node.close();
        otherNode.close();
    }

    @Locked("order:{0}")
    String ship(String orderNo) {
        throw new UnsupportedOperationException("called through call(...)");
    }

    @Locked(value = "order:{0}", scope = LockScope.LEASE, lease = "300ms")
    String shipUnderALease(String orderNo) {
        throw new UnsupportedOperationException("called through call(...)");
    }

    @Test
    void theMethodRunsUnderItsLockAndItsResultIsReturned() throws Exception {
        TM.begin();
        Object result = call("ship", "A-1", () -> {
            Optional<LockInfo> seen = otherNode.inspect("order:A-1");
            assertThat(seen).as("held while the method runs").isPresent();
            assertThat(seen.get().ownerId()).contains(node.instanceId());
            return "shipped";
        });
        assertThat(result).isEqualTo("shipped");
        assertThat(otherNode.inspect("order:A-1")).as("held until the transaction ends").isPresent();
        TM.commit();
        assertThat(otherNode.inspect("order:A-1")).as("freed by the commit").isEmpty();
    }

    @Test
    void aTransactionThatTimesOutUnderTheMethodDoesNotReplaceItsResult() throws Exception {
        TM.setTransactionTimeout(1);
        TM.begin();
        Object result = call("ship", "A-2", () -> {
            awaitRolledBackAndFreed("order:A-2");
            return "shipped";
        });
        assertThat(result).as("the method's result; the transaction reports the timeout").isEqualTo("shipped");
        assertThatThrownBy(TM::commit).isInstanceOf(RollbackException.class);
    }

    @Test
    void aTransactionThatTimesOutUnderTheMethodLeavesItsExceptionAlone() throws Exception {
        IllegalStateException declined = new IllegalStateException("payment declined");
        TM.setTransactionTimeout(1);
        TM.begin();
        assertThatThrownBy(() -> call("ship", "A-3", () -> {
            awaitRolledBackAndFreed("order:A-3");
            throw declined;
        })).isSameAs(declined).hasNoSuppressedExceptions();
    }

    @Test
    void aLeaseLostUnderAMethodThatReturnedIsReported() throws Exception {
        assertThatThrownBy(() -> call("shipUnderALease", "A-4", () -> {
            awaitTakenByTheOtherNode("order:A-4");
            return "shipped";
        })).as("the method's work was not protected: its result cannot be trusted")
                .isInstanceOf(LockNotHeldException.class).hasMessageContaining("lost");
    }

    @Test
    void aLeaseLostUnderAMethodThatFailedLeavesItsExceptionFirst() throws Exception {
        IllegalStateException declined = new IllegalStateException("payment declined");
        assertThatThrownBy(() -> call("shipUnderALease", "A-5", () -> {
            awaitTakenByTheOtherNode("order:A-5");
            throw declined;
        })).isSameAs(declined)
                .satisfies(e -> assertThat(e.getSuppressed()).singleElement().isInstanceOf(LockNotHeldException.class));
    }

    /** Waits, on the method's thread, until the transaction's timeout rolled it back and freed its lock. */
    private void awaitRolledBackAndFreed(String name) {
        Awaitility.await().pollInSameThread().atMost(Duration.ofSeconds(30)).until(() -> TM.getStatus() == Status.STATUS_ROLLEDBACK);
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> otherNode.inspect(name).isEmpty());
    }

    /** Waits until the lease ran out and the other node holds the lock. */
    private void awaitTakenByTheOtherNode(String name) {
        LockOptions lease = LockOptions.defaults().withScope(LockScope.LEASE).withWait(Duration.ZERO);
        LockHandle[] taken = new LockHandle[1];
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
            taken[0] = otherNode.tryAcquire(name, lease).orElse(null);
            return taken[0] != null;
        });
    }

    private Object call(String methodName, String orderNo, Callable<Object> body) throws Exception {
        Method method = Arrays.stream(LockedInterceptorTest.class.getDeclaredMethods())
                .filter(m -> m.getName().equals(methodName)).findFirst().orElseThrow();
        LockedMethod locked = LockedMethod.compile(method.getAnnotation(Locked.class), method, methodName);
        return LockedInterceptor.proceedLocked(node, locked, new Invocation(method, new Object[] {orderNo}, body));
    }

    /** A call as the container hands it to the interceptor. */
    private record Invocation(Method method, Object[] parameters, Callable<Object> body) implements InvocationContext {
        @Override
        public Object getTarget() {
            return null;
        }

        @Override
        public Object getTimer() {
            return null;
        }

        @Override
        public Method getMethod() {
            return method;
        }

        @Override
        public Constructor<?> getConstructor() {
            return null;
        }

        @Override
        public Object[] getParameters() {
            return parameters;
        }

        @Override
        public void setParameters(Object[] parameters) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Map<String, Object> getContextData() {
            return Map.of();
        }

        @Override
        public Object proceed() throws Exception {
            return body.call();
        }
    }
}

package io.txlock.cdi;

import io.txlock.LockManager;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import java.io.Serializable;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The interceptor of {@link Locked}: acquires the method's lock from the application's {@link LockManager} bean,
 * calls the method, and releases the lock (or, in a transaction, leaves it to the transaction's end). Enabled for
 * the whole application by {@link TxlockExtension}; it runs inside the transaction interceptors.
 */
@Locked("")
@Interceptor
@Priority(Interceptor.Priority.LIBRARY_BEFORE + 100)
public class LockedInterceptor implements Serializable {

    private static final long serialVersionUID = 1L;

    /** Compiled annotations per class, so that an undeployed application's classes are not kept. */
    private static final ClassValue<Map<Method, LockedMethod>> COMPILED = new ClassValue<>() {
        @Override
        protected Map<Method, LockedMethod> computeValue(Class<?> type) {
            return new ConcurrentHashMap<>();
        }
    };

    /** The application's manager, resolved at the first call so that a missing one can be explained. */
    @Inject
    private Instance<LockManager> managers;

    /** For CDI. */
    public LockedInterceptor() {
    }

    /**
     * @param invocation the intercepted call
     * @return what the method returned
     * @throws Exception what the method threw; a {@link io.txlock.LockException} if the lock was not granted, or
     *     if a LEASE-scoped lock was lost while the method ran and it returned normally
     */
    @AroundInvoke
    public Object lock(InvocationContext invocation) throws Exception {
        Method method = invocation.getMethod();
        LockedMethod locked = COMPILED.get(method.getDeclaringClass())
                .computeIfAbsent(method, m -> compile(m, invocation));
        return proceedLocked(manager(method), locked, invocation);
    }

    static Object proceedLocked(LockManager locks, LockedMethod locked, InvocationContext invocation) throws Exception {
        return locked.call(locks, invocation.getParameters(), invocation::proceed);
    }

    private static LockedMethod compile(Method method, InvocationContext invocation) {
        return LockedMethod.of(method, invocation.getTarget().getClass());
    }

    private LockManager manager(Method method) {
        if (managers.isUnsatisfied()) {
            throw new IllegalStateException("@Locked on " + where(method) + " needs a LockManager bean: add a producer,"
                    + " e.g. @Produces @ApplicationScoped LockManager locks() { return LockManager.builder("
                    + "JdbcLockProvider.builder(dataSource).build()).build(); }");
        }
        if (managers.isAmbiguous()) {
            throw new IllegalStateException("@Locked on " + where(method) + " uses the application's LockManager bean with"
                    + " the @Default qualifier, and there are several: give the others a qualifier");
        }
        return managers.get();
    }

    static String where(Method method) {
        return LockedMethod.where(method);
    }
}

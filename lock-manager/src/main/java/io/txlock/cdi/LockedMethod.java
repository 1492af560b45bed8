package io.txlock.cdi;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockNotHeldException;
import io.txlock.LockOptions;
import io.txlock.LockScope;
import java.lang.reflect.Method;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@link Locked} annotation compiled for one method: its name template and the options it overrides, and the
 * locked call itself. The CDI interceptor and other integrations (the Spring Boot starter's aspect) share it.
 *
 * <pre>{@code
 * LockedMethod locked = LockedMethod.of(method, targetClass);   // once per method: checks the template
 * return locked.call(lockManager, arguments, invocation::proceed);
 * }</pre>
 */
public final class LockedMethod {

    /**
     * The body of a locked call.
     *
     * @param <E> what it may throw
     */
    @FunctionalInterface
    public interface Body<E extends Throwable> {
        /**
         * @return the method's result
         * @throws E what the method threw
         */
        Object proceed() throws E;
    }


    private final NameTemplate name;
    private final Locked locked;
    private final Duration wait;
    private final Duration lease;

    private LockedMethod(NameTemplate name, Locked locked, Duration wait, Duration lease) {
        this.name = name;
        this.locked = locked;
        this.wait = wait;
        this.lease = lease;
    }

    /**
     * Compiles the {@link Locked} annotation that applies to {@code method}: its own, else its class's (the declaring
     * class, then {@code targetClass} and its superclasses, for a target that is a proxy or subclass of the bean).
     *
     * @param method the called method
     * @param targetClass the class of the object it is called on; may be null
     * @return the compiled annotation
     * @throws IllegalArgumentException if neither the method nor its class has {@link Locked}, or the annotation is
     *     invalid (the message says what to fix)
     */
    public static LockedMethod of(Method method, Class<?> targetClass) {
        Locked onMethod = method.getAnnotation(Locked.class);
        if (onMethod != null) {
            return compile(onMethod, method, where(method));
        }
        Locked onClass = method.getDeclaringClass().getAnnotation(Locked.class);
        for (Class<?> c = targetClass; onClass == null && c != null; c = c.getSuperclass()) {
            onClass = c.getAnnotation(Locked.class);
        }
        if (onClass == null) {
            throw new IllegalArgumentException(where(method) + " has no @Locked, neither on the method nor on its class");
        }
        return compile(onClass, null, method.getDeclaringClass().getName());
    }

    /**
     * Calls {@code body} holding this method's lock, then gives this call's hold back: released at once in LEASE
     * scope, left to the transaction's end in TRANSACTION scope. The body's own exception always wins: a failure to
     * give the hold back is added to it as suppressed.
     *
     * @param locks the manager
     * @param arguments the call's arguments, for the name template
     * @param body the method
     * @param <E> what the body may throw
     * @return what the body returned
     * @throws E what the body threw
     * @throws io.txlock.LockException if the lock was not granted (the body is then not called), or if a
     *     LEASE-scoped lock was lost while the body ran and it returned normally
     */
    public <E extends Throwable> Object call(LockManager locks, Object[] arguments, Body<E> body) throws E {
        LockHandle lock = locks.acquire(name(arguments), options(locks.defaults()));
        Object result;
        try {
            result = body.proceed();
        } catch (Throwable failure) {
            try {
                giveBack(lock);
            } catch (RuntimeException e) {
                failure.addSuppressed(e);
            }
            throw failure;
        }
        giveBack(lock);
        return result;
    }

    /**
     * A TRANSACTION-scoped lock ends with its transaction. If that ended while the method ran (a transaction
     * timeout rolled it back), there is nothing left to give back, and whoever ends the transaction learns that
     * it did not commit; a TRANSACTION-scoped lock lost while held has its transaction marked rollback-only for
     * the same reason. A LEASE lock lost while the method ran is reported: the method's work was not protected.
     */
    private static void giveBack(LockHandle lock) {
        try {
            lock.close();
        } catch (LockNotHeldException e) {
            if (lock.scope() != LockScope.TRANSACTION) {
                throw e;
            }
        }
    }

    static String where(Method method) {
        return method.getDeclaringClass().getName() + "." + method.getName();
    }

    /**
     * @param locked the annotation
     * @param method the method it names locks for; null for a class-level annotation
     * @param where the annotated element, for messages
     * @return the compiled annotation
     * @throws IllegalArgumentException naming what is wrong with the annotation
     */
    static LockedMethod compile(Locked locked, Method method, String where) {
        NameTemplate name = NameTemplate.compile(locked.value(), method, where);
        String in = "@Locked(\"" + locked.value() + "\") on " + where;
        Duration wait = duration(locked.waitTime(), "waitTime", in);
        Duration lease = duration(locked.lease(), "lease", in);
        if (lease != null && lease.compareTo(Duration.ofMillis(1)) < 0) {
            throw new IllegalArgumentException(in + ": lease must be at least 1 ms, was '" + locked.lease() + "'");
        }
        return new LockedMethod(name, locked, wait, lease);
    }

    /** @return the lock name for a call with {@code arguments} */
    String name(Object[] arguments) {
        return name.render(arguments);
    }

    /** @return the manager's defaults with this annotation's wait, lease and scope */
    LockOptions options(LockOptions defaults) {
        LockOptions options = defaults.withScope(locked.scope());
        if (wait != null) {
            options = options.withWait(wait);
        }
        if (lease != null) {
            options = options.withLease(lease);
        }
        return options;
    }

    /** @return the duration, or null if {@code text} is empty (the manager's default) */
    static Duration duration(String text, String attribute, String in) {
        if (text.isBlank()) {
            return null;
        }
        try {
            return LockOptions.parseDuration(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(in + ": " + attribute + " " + e.getMessage(), e);
        }
    }
}

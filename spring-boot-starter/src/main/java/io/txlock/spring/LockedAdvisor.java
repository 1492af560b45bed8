package io.txlock.spring;

import io.txlock.LockManager;
import io.txlock.cdi.Locked;
import io.txlock.cdi.LockedMethod;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.aop.Advice;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.Pointcut;
import org.springframework.aop.support.AbstractPointcutAdvisor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.StaticMethodMatcherPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.MethodClassKey;
import org.springframework.core.Ordered;

/**
 * Honours {@link Locked} on Spring beans: the method runs while holding the named lock of the application's
 * {@link LockManager}, exactly as the CDI interceptor does it (the same name templates, waits, leases and scopes,
 * through {@link LockedMethod}). Templates are checked when the bean is proxied, at startup.
 *
 * <p>Ordered {@link Ordered#LOWEST_PRECEDENCE} and registered after Spring's transaction advisor, so it runs inside
 * {@code @Transactional}: in the default AUTO scope, a transactional method's lock is held until its transaction
 * commits or rolls back.
 */
public final class LockedAdvisor extends AbstractPointcutAdvisor {

    private static final long serialVersionUID = 1L;

    private final transient Map<MethodClassKey, LockedMethod> compiled = new ConcurrentHashMap<>();
    private final transient ObjectProvider<LockManager> locks;
    private final transient Pointcut pointcut = new StaticMethodMatcherPointcut() {
        @Override
        public boolean matches(Method method, Class<?> targetClass) {
            return compile(method, targetClass) != null;
        }
    };
    private final transient MethodInterceptor advice = new MethodInterceptor() {
        @Override
        public Object invoke(MethodInvocation invocation) throws Throwable {
            Object target = invocation.getThis();
            LockedMethod locked = compile(invocation.getMethod(), target != null ? AopUtils.getTargetClass(target) : null);
            if (locked == null) {
                return invocation.proceed();
            }
            return locked.call(manager(invocation.getMethod()), invocation.getArguments(), invocation::proceed);
        }
    };

    /** @param locks the application's lock manager, looked up at the first locked call */
    public LockedAdvisor(ObjectProvider<LockManager> locks) {
        this.locks = locks;
        setOrder(Ordered.LOWEST_PRECEDENCE);
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return advice;
    }

    /** @return the compiled annotation that applies, or null if none does */
    private LockedMethod compile(Method method, Class<?> targetClass) {
        MethodClassKey key = new MethodClassKey(method, targetClass);
        LockedMethod known = compiled.get(key);
        if (known != null) {
            return known;
        }
        Method specific = AopUtils.getMostSpecificMethod(method, targetClass);
        Method annotated = specific.isAnnotationPresent(Locked.class) ? specific
                : method.isAnnotationPresent(Locked.class) ? method : null;
        if (annotated == null && !(lockedClass(specific, targetClass) && isBusinessMethod(specific))) {
            return null;
        }
        LockedMethod locked = LockedMethod.of(annotated != null ? annotated : specific, targetClass);
        compiled.put(key, locked);
        return locked;
    }

    private static boolean lockedClass(Method method, Class<?> targetClass) {
        if (method.getDeclaringClass().isAnnotationPresent(Locked.class)) {
            return true;
        }
        for (Class<?> c = targetClass; c != null; c = c.getSuperclass()) {
            if (c.isAnnotationPresent(Locked.class)) {
                return true;
            }
        }
        return false;
    }

    /** A class-level {@link Locked} applies to the public methods the application declares, as in CDI. */
    private static boolean isBusinessMethod(Method method) {
        return Modifier.isPublic(method.getModifiers()) && !Modifier.isStatic(method.getModifiers())
                && method.getDeclaringClass() != Object.class;
    }

    private LockManager manager(Method method) {
        LockManager manager = locks.getIfUnique();
        if (manager == null) {
            throw new IllegalStateException("@Locked on " + method.getDeclaringClass().getName() + "." + method.getName()
                    + " needs exactly one LockManager bean: configure a DataSource (or a LockProvider bean) for the txlock"
                    + " auto-configuration, or mark one of several LockManager beans @Primary");
        }
        return manager;
    }
}

package io.txlock.cdi;

import io.txlock.LockManager;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.AfterTypeDiscovery;
import jakarta.enterprise.inject.spi.AnnotatedMethod;
import jakarta.enterprise.inject.spi.AnnotatedType;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.WithAnnotations;
import java.util.ArrayList;
import java.util.List;

/**
 * txlock's CDI extension, found through {@code META-INF/services}: it checks every {@link Locked} annotation at
 * deployment, so that a bad name template, a bad duration or a missing {@link LockManager} bean stops the
 * deployment with a message that says what to fix, instead of failing the first call, and it enables
 * {@link LockedInterceptor} only in an application one of whose types uses {@link Locked}. An application that
 * does not use {@code @Locked} gets no enabled interceptor and no check from it, and needs no {@link LockManager}.
 */
public class TxlockExtension implements Extension {

    private final List<String> problems = new ArrayList<>();
    private final List<String> lockedElements = new ArrayList<>();

    /** For CDI, which finds the extension through {@code ServiceLoader}. */
    public TxlockExtension() {
    }

    void registerInterceptor(@Observes BeforeBeanDiscovery event, BeanManager beanManager) {
        event.addAnnotatedType(beanManager.createAnnotatedType(LockedInterceptor.class), LockedInterceptor.class.getName());
    }

    void disableInterceptorWhereUnused(@Observes AfterTypeDiscovery event) {
        if (lockedElements.isEmpty()) {
            event.getInterceptors().remove(LockedInterceptor.class);
        }
    }

    <T> void checkTemplates(@Observes @WithAnnotations(Locked.class) ProcessAnnotatedType<T> event) {
        AnnotatedType<T> type = event.getAnnotatedType();
        if (type.getJavaClass() == LockedInterceptor.class) {
            return;
        }
        Locked onClass = type.getAnnotation(Locked.class);
        if (onClass != null) {
            check(() -> LockedMethod.compile(onClass, null, type.getJavaClass().getName()), type.getJavaClass().getName());
        }
        for (AnnotatedMethod<? super T> method : type.getMethods()) {
            Locked locked = method.getAnnotation(Locked.class);
            if (locked != null) {
                String where = LockedInterceptor.where(method.getJavaMember());
                check(() -> LockedMethod.compile(locked, method.getJavaMember(), where), where);
            }
        }
    }

    private void check(Runnable compile, String where) {
        lockedElements.add(where);
        try {
            compile.run();
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
        }
    }

    void reportProblems(@Observes AfterDeploymentValidation event, BeanManager beanManager) {
        for (String problem : problems) {
            event.addDeploymentProblem(new IllegalArgumentException(problem));
        }
        if (!lockedElements.isEmpty() && beanManager.getBeans(LockManager.class).isEmpty()) {
            event.addDeploymentProblem(new IllegalStateException("@Locked on " + lockedElements.get(0)
                    + (lockedElements.size() > 1 ? " and " + (lockedElements.size() - 1) + " more" : "")
                    + " needs a LockManager bean, and the application has none: add a producer, e.g."
                    + " @Produces @ApplicationScoped LockManager locks() { return LockManager.builder("
                    + "JdbcLockProvider.builder(dataSource).build()).build(); }"));
        }
    }
}

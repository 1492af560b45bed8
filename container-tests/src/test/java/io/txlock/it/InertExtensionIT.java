package io.txlock.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.LockManager;
import io.txlock.cdi.Locked;
import io.txlock.it.plain.Greeter;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.InterceptionType;
import jakarta.enterprise.util.AnnotationLiteral;
import jakarta.inject.Inject;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An application that has the txlock jars but uses no {@code @Locked} deploys without a {@link LockManager} bean,
 * and txlock's CDI extension enables no interceptor in it.
 */
@ExtendWith(ArquillianExtension.class)
class InertExtensionIT {

    @Deployment
    static WebArchive deployment() {
        return Deployments.war("inert-extension", Greeter.class.getPackage());
    }

    @Inject
    BeanManager beans;

    @Inject
    Greeter greeter;

    @Test
    void anApplicationWithoutLockedGetsNoInterceptorAndNeedsNoManager() {
        assertThat(greeter.greet("txlock")).isEqualTo("hello txlock");
        assertThat(beans.getBeans(LockManager.class)).isEmpty();
        assertThat(beans.resolveInterceptors(InterceptionType.AROUND_INVOKE, new AnyLocked())).isEmpty();
    }

    @SuppressWarnings("all")
    private static final class AnyLocked extends AnnotationLiteral<Locked> implements Locked {
        @Override
        public String value() {
            return "";
        }

        @Override
        public String waitTime() {
            return "";
        }

        @Override
        public String lease() {
            return "";
        }

        @Override
        public io.txlock.LockScope scope() {
            return io.txlock.LockScope.AUTO;
        }
    }
}

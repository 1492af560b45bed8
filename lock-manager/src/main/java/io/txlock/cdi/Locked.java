package io.txlock.cdi;

import io.txlock.LockScope;
import jakarta.enterprise.util.Nonbinding;
import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method while holding a named lock of the application's {@link io.txlock.LockManager} bean,
 * on EJB session beans and CDI beans alike.
 *
 * <pre>{@code
 * @Stateless
 * public class OrderService {
 *     @Locked(value = "order:{order.number}", waitTime = "5s")
 *     public void ship(Order order) { … }          // one caller per order number at a time, cluster-wide
 *
 *     @Locked("customer:{0}")
 *     public void recompute(long customerId) { … }
 * }
 * }</pre>
 *
 * <p>The name is a template: literal text with placeholders in braces. A placeholder names a parameter by index
 * ({@code {0}}) or by name ({@code {order}}, which needs classes compiled with {@code -parameters}), followed by
 * any number of properties ({@code {order.customer.id}}): a public field, a record component or a getter
 * ({@code getX()}/{@code isX()}), resolved on the declared types. Values are turned into text with
 * {@link String#valueOf}; a {@code null} value fails the call with an {@link IllegalArgumentException}. Templates
 * are checked when the application is deployed: a placeholder that names no parameter or property is a
 * deployment error. Braces cannot appear in the literal text.
 *
 * <p>In the default {@link LockScope#AUTO AUTO} scope a method that runs in a transaction (a container-managed
 * EJB transaction, {@code @Transactional}) keeps the lock until that transaction commits or rolls back, so the
 * next caller sees its committed work; without a transaction the lock is released when the method returns. The
 * interceptor runs inside the transaction interceptors ({@link jakarta.interceptor.Interceptor.Priority#LIBRARY_BEFORE}
 * + 100). If the lock is not granted within the wait, the method is not called and
 * {@link io.txlock.LockTimeoutException} is thrown.
 *
 * <p>On a class, a constant name (no placeholders) locks every business method of the class; a method's own
 * annotation wins over its class's.
 */
@InterceptorBinding
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface Locked {

    /** @return the lock name template, e.g. {@code "order:{order.number}"} or {@code "order:{0}"} */
    @Nonbinding
    String value();

    /**
     * @return how long to wait for the lock: an ISO-8601 duration ({@code "PT5S"}), a number with a unit
     *     ({@code "500ms"}, {@code "5s"}, {@code "2m"}, {@code "1h"}), {@code "0"} for no wait, or {@code "forever"};
     *     empty for the manager's default
     */
    @Nonbinding
    String waitTime() default "";

    /** @return the lease of a LEASE-scoped lock, in the same forms as {@link #waitTime()}; empty for the default */
    @Nonbinding
    String lease() default "";

    /** @return the scope; {@link LockScope#AUTO} by default */
    @Nonbinding
    LockScope scope() default LockScope.AUTO;
}

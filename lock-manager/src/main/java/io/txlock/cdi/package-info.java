/**
 * CDI integration: the application's {@link io.txlock.LockManager} bean, the {@link io.txlock.cdi.Locked}
 * interceptor binding and its deployment-time checks ({@link io.txlock.cdi.TxlockExtension}).
 *
 * <p>The application configures its manager with a producer, which also closes it when the application stops:
 *
 * <pre>{@code
 * @ApplicationScoped
 * public class Locks {
 *     @Resource(lookup = "java:app/jdbc/orders")           // the application's JTA datasource
 *     DataSource dataSource;
 *
 *     @Produces @ApplicationScoped
 *     LockManager lockManager() {
 *         return LockManager.builder(JdbcLockProvider.builder(dataSource).build()).build();
 *     }
 *
 *     void close(@Disposes LockManager locks) {
 *         locks.close();
 *     }
 * }
 * }</pre>
 *
 * <p>EJBs and CDI beans then {@code @Inject LockManager} or annotate methods with {@code @Locked}. The manager
 * finds the caller's JTA transaction through the container's {@code TransactionSynchronizationRegistry}.
 */
package io.txlock.cdi;

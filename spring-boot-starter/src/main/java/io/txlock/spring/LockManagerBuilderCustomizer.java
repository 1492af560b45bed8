package io.txlock.spring;

import io.txlock.LockManager;

/**
 * Adjusts the auto-configured {@link LockManager} before it is built: declare beans of this type, for example to
 * add metric tags or set defaults the {@code txlock.*} properties do not cover.
 *
 * <pre>{@code
 * @Bean
 * LockManagerBuilderCustomizer ownerHost() {
 *     return builder -> builder.ownerHost(System.getenv("POD_NAME"));
 * }
 * }</pre>
 */
@FunctionalInterface
public interface LockManagerBuilderCustomizer {

    /** @param builder the builder, already configured from the {@code txlock.*} properties */
    void customize(LockManager.Builder builder);
}

package io.txlock.spring;

import io.txlock.LockManager;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.transaction.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Role;

/**
 * {@link io.txlock.cdi.Locked @Locked} honoured on Spring beans ({@link LockedAdvisor}), whatever configured the
 * application's {@link LockManager}: the starter or the application itself. Always on, so that a {@code @Locked}
 * method of an application without a lock manager fails, saying so, instead of running unlocked. Registered after
 * Spring's transaction advisor, so that it runs inside {@code @Transactional}.
 */
@AutoConfiguration(after = {TransactionAutoConfiguration.class, TxlockAutoConfiguration.class})
public class TxlockLockedAutoConfiguration {

    /** For Spring. */
    public TxlockLockedAutoConfiguration() {
    }

    /**
     * @param locks the application's lock manager, resolved at the first locked call
     * @return the advisor that honours {@link io.txlock.cdi.Locked @Locked}
     */
    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    @ConditionalOnMissingBean
    public static LockedAdvisor txlockLockedAdvisor(ObjectProvider<LockManager> locks) {
        return new LockedAdvisor(locks);
    }
}

package io.txlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.spi.LockProvider;
import io.txlock.spring.custom.CustomProviderApplication;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** The application's own LockProvider bean replaces the JDBC one, and customizers adjust the manager. */
class CustomBeansTest {

    @Test
    void theApplicationsProviderAndCustomizerAreUsed() {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(CustomProviderApplication.class)
                .web(WebApplicationType.NONE)
                .run("--spring.datasource.url=jdbc:h2:mem:custom-beans;DB_CLOSE_DELAY=-1", "--" + StarterTest.WITHOUT_JPA)) {
            assertThat(app.getBeansOfType(LockProvider.class)).containsOnlyKeys("otherLocks");
            assertThat(((JdbcLockProvider) app.getBean(LockProvider.class)).table()).isEqualTo("other_lock");
            LockManager locks = app.getBean(LockManager.class);
            try (LockHandle lock = locks.acquire("custom")) {
                assertThat(locks.inspect("custom")).hasValueSatisfying(info -> assertThat(info.ownerHost()).isEqualTo("custom-host"));
            }
        }
    }
}

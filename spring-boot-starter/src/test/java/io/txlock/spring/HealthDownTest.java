package io.txlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.spring.app.CounterApplication;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.HealthIndicator;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** The application starts while its database is down, and the {@code txlock} health indicator says DOWN. */
class HealthDownTest {

    @Test
    void theHealthIndicatorIsDownWhileTheDatabaseCannotBeReached() throws Exception {
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort(); // nothing listens there once it is closed
        }
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(CounterApplication.class)
                .web(WebApplicationType.NONE)
                .properties("spring.datasource.url=jdbc:postgresql://127.0.0.1:" + port + "/test", "spring.datasource.username=postgres",
                        "spring.datasource.hikari.connection-timeout=1000",
                        StarterTest.WITHOUT_JPA)
                .run()) {
            Health health = app.getBean("txlockHealthIndicator", HealthIndicator.class).health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(String.valueOf(health.getDetails().get("error"))).contains("LockBackendException");
        }
    }
}

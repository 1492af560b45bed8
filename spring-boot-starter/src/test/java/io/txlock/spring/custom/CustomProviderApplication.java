package io.txlock.spring.custom;

import io.txlock.jdbc.JdbcDialect;
import io.txlock.jdbc.JdbcLockProvider;
import io.txlock.jdbc.JdbcLockSchema;
import io.txlock.spi.LockProvider;
import io.txlock.spring.LockManagerBuilderCustomizer;
import javax.sql.DataSource;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;

/** An application with a lock provider of its own and a customizer of the auto-configured manager. */
@SpringBootApplication
public class CustomProviderApplication {

    @Bean
    LockProvider otherLocks(DataSource dataSource) {
        JdbcLockSchema.create(dataSource, JdbcDialect.H2, "other_lock");
        return JdbcLockProvider.builder(dataSource).table("other_lock").build();
    }

    @Bean
    LockManagerBuilderCustomizer ownerHost() {
        return builder -> builder.ownerHost("custom-host");
    }
}

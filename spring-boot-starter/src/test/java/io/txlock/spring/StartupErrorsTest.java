package io.txlock.spring;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.spring.nomanager.NoManagerApplication;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;

/** A misconfigured application does not start, and the message names the property to fix. */
class StartupErrorsTest {

    private static void start(String... arguments) {
        String[] all = new String[arguments.length + 3];
        all[0] = "--spring.datasource.url=jdbc:h2:mem:startup-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";
        all[1] = "--" + StarterTest.WITHOUT_JPA;
        all[2] = "--spring.main.banner-mode=off";
        System.arraycopy(arguments, 0, all, 3, arguments.length);
        new SpringApplicationBuilder(NoManagerApplication.class).web(WebApplicationType.NONE).run(all).close();
    }

    @Test
    void aMissingLockTableSaysHowToCreateIt() {
        assertThatThrownBy(() -> start())
                .hasMessageContaining("lock table method_lock does not exist in the h2 database")
                .hasMessageContaining("With the Spring Boot starter: set txlock.create-table=true");
    }

    @Test
    void aNegativeWaitNamesTheProperty() {
        assertThatThrownBy(() -> start("--txlock.create-table=true", "--txlock.wait=-1s"))
                .hasMessageContaining("invalid txlock.wait: wait must be zero or positive");
    }
}

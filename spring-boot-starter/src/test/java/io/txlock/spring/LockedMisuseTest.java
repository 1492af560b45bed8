package io.txlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.spring.bad.BadTemplateApplication;
import io.txlock.spring.nomanager.NoManagerApplication;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** {@link io.txlock.cdi.Locked} misused: the application says what to fix instead of running unlocked. */
class LockedMisuseTest {

    private static final String H2 = "--spring.datasource.url=jdbc:h2:mem:bad-template;DB_CLOSE_DELAY=-1";

    @Test
    void aTemplateThatNamesNoParameterFailsTheStartup() {
        assertThatThrownBy(() -> new SpringApplicationBuilder(BadTemplateApplication.class)
                .web(WebApplicationType.NONE)
                .run(H2, "--txlock.create-table=true", "--" + StarterTest.WITHOUT_JPA)
                .close())
                .rootCause()
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("@Locked(\"order:{orderNo}\")")
                .hasMessageContaining("no parameter named 'orderNo'; the parameters are [orderNumber]");
    }

    @Test
    void aLockedMethodWithoutALockManagerFailsInsteadOfRunningUnlocked() {
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(NoManagerApplication.class)
                .web(WebApplicationType.NONE)
                .run(H2, "--txlock.enabled=false", "--" + StarterTest.WITHOUT_JPA)) {
            NoManagerApplication.Nightly nightly = app.getBean(NoManagerApplication.Nightly.class);
            assertThatThrownBy(nightly::run).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("needs exactly one LockManager bean");
            assertThat(nightly.ran).isFalse();
        }
    }
}

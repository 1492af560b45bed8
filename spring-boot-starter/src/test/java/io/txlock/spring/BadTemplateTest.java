package io.txlock.spring;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.spring.bad.BadTemplateApplication;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;

/** A {@link io.txlock.cdi.Locked} template with a typo fails the application's startup, saying what to fix. */
class BadTemplateTest {

    @Test
    void aTemplateThatNamesNoParameterFailsTheStartup() {
        assertThatThrownBy(() -> new SpringApplicationBuilder(BadTemplateApplication.class)
                .web(WebApplicationType.NONE)
                .run("--spring.datasource.url=jdbc:h2:mem:bad-template;DB_CLOSE_DELAY=-1", "--txlock.create-table=true")
                .close())
                .rootCause()
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("@Locked(\"order:{orderNo}\")")
                .hasMessageContaining("no parameter named 'orderNo'; the parameters are [orderNumber]");
    }
}

package io.txlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.io.StringReader;
import org.junit.jupiter.api.Test;

/**
 * The README's Spring Boot quick start is the code this module compiles and {@link StarterTest} runs
 * ({@code io.txlock.spring.app.quickstart.OrderService}), and its properties parse as Boot reads them.
 */
class ReadmeQuickStartTest {

    private static final Path README = Path.of("..", "README.md");
    private static final Path SOURCE = Path.of("src", "test", "java", "io", "txlock", "spring", "app", "quickstart", "OrderService.java");

    private static String section() throws Exception {
        String readme = Files.readString(README);
        int start = readme.indexOf("## Spring Boot quick start");
        assertThat(start).as("README has a Spring Boot quick start").isNotNegative();
        return readme.substring(start, readme.indexOf("\n## ", start + 1));
    }

    private static String block(String section, String language) {
        int start = section.indexOf("```" + language + "\n");
        assertThat(start).as("a ```" + language + " block").isNotNegative();
        start += language.length() + 4;
        return section.substring(start, section.indexOf("```", start));
    }

    @Test
    void theJavaBlockIsTheCompiledQuickStartSource() throws Exception {
        String source = Files.readString(SOURCE);
        String withoutPackage = source.substring(source.indexOf('\n') + 1).stripLeading();
        assertThat(block(section(), "java")).isEqualTo(withoutPackage);
    }

    @Test
    void thePropertiesBlockParses() throws Exception {
        Properties properties = new Properties();
        properties.load(new StringReader(block(section(), "properties")));
        assertThat(properties).containsEntry("txlock.create-table", "true").containsEntry("txlock.wait", "5s");
    }
}

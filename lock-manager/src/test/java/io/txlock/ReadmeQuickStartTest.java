package io.txlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The README's Java SE quick start, taken from the README as it stands, compiles and runs. */
class ReadmeQuickStartTest {

    @Test
    void theJavaSeQuickStartCompilesAndRunsAsWritten(@TempDir Path dir) throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"));
        String section = readme.substring(readme.indexOf("## Java SE quick start"));
        int start = section.indexOf("```java\n") + "```java\n".length();
        String program = section.substring(start, section.indexOf("```", start));
        assertThat(program).as("the quick start's program").contains("public class QuickStart");
        Path source = dir.resolve("QuickStart.java");
        Files.writeString(source, program);

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream diagnostics = new ByteArrayOutputStream();
        int status = javac.run(null, diagnostics, diagnostics, "-classpath", System.getProperty("java.class.path"),
                "-d", dir.toString(), source.toString());
        assertThat(status).as("javac of the README's quick start: %s", diagnostics.toString(StandardCharsets.UTF_8)).isZero();

        PrintStream out = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
            System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
            loader.loadClass("QuickStart").getMethod("main", String[].class).invoke(null, (Object) new String[0]);
        } finally {
            System.setOut(out);
        }
        List<String> lines = printed.toString(StandardCharsets.UTF_8).lines().toList();
        assertThat(lines).as("what the quick start printed").hasSize(4);
        assertThat(lines.get(0)).as("its first line").matches("order 42, fencing token [1-9][0-9]*");
        assertThat(lines.subList(1, 4)).as("what the quick start printed")
                .containsExactly("report built", "cleaned up", "cleanup ran: true, held now: true");
    }
}

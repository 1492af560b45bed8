package io.txlock.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every statement of every dialect, rendered for the table {@code method_lock} into
 * {@code src/test/resources/sql/golden/<dialect>.sql}, so that a change to the SQL shows in review as a change to
 * those files. A statement is a method of a {@link Statements} class that returns {@code String} (or a
 * {@link LockTableSql.SessionWait}) and takes nothing, a wait or a batch size; a waiting statement is rendered for
 * each of {@link #WAITS}. After a deliberate change, regenerate the files and review their diff:
 *
 * <pre>mvn -pl lock-manager -am verify -Dtest=DialectSqlGoldenTest -Dsurefire.failIfNoSpecifiedTests=false -Dtxlock.golden.update=true</pre>
 */
class DialectSqlGoldenTest {

    private static final Path GOLDEN = Path.of("src/test/resources/sql/golden");
    private static final List<Duration> WAITS = List.of(Duration.ZERO, Duration.ofMillis(1500));
    private static final int BATCH = 500;

    @ParameterizedTest
    @EnumSource(JdbcDialect.class)
    void everyStatementIsAsInItsGoldenFile(JdbcDialect dialect) throws Exception {
        String rendered = render(Statements.of(dialect, "method_lock"));
        Path file = GOLDEN.resolve(dialect.name().toLowerCase(Locale.ROOT) + ".sql");
        if (Boolean.getBoolean("txlock.golden.update")) {
            Files.createDirectories(GOLDEN);
            Files.writeString(file, rendered, StandardCharsets.UTF_8);
        }
        assertThat(file).as("the golden SQL of %s (regenerate with -Dtxlock.golden.update=true and review the diff)", dialect)
                .exists();
        assertThat(Files.readString(file, StandardCharsets.UTF_8))
                .as("the SQL of %s against %s (regenerate with -Dtxlock.golden.update=true and review the diff)", dialect, file)
                .isEqualTo(rendered);
    }

    private static String render(Statements st) throws Exception {
        StringBuilder out = new StringBuilder("-- The SQL of " + st.getClass().getSimpleName()
                + " for the table method_lock, as DialectSqlGoldenTest renders it; do not edit: regenerate.\n");
        for (Method m : statementMethods(st.getClass())) {
            m.setAccessible(true);
            Set<String> seen = new LinkedHashSet<>();
            for (Object arg : arguments(m)) {
                Object value = arg == null ? m.invoke(st) : m.invoke(st, arg);
                String text = value instanceof LockTableSql.SessionWait w
                        ? w.query() + ";\n" + w.update(w.value()) + (w.endsWithTransaction() ? "; -- until the transaction ends" : "")
                        : (String) value;
                if (text == null || !seen.add(text)) {
                    continue;
                }
                out.append("\n-- ").append(m.getName()).append(describe(m, arg)).append('\n').append(text).append(";\n");
            }
        }
        return out.toString();
    }

    private static List<Method> statementMethods(Class<?> dialect) {
        List<Method> found = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>();
        for (Class<?> c = dialect; c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                boolean statement = (m.getReturnType() == String.class || m.getReturnType() == LockTableSql.SessionWait.class)
                        && !Modifier.isStatic(m.getModifiers()) && !Modifier.isPrivate(m.getModifiers()) && !m.isSynthetic()
                        && (m.getParameterCount() == 0 || m.getParameterCount() == 1
                                && (m.getParameterTypes()[0] == Duration.class || m.getParameterTypes()[0] == int.class));
                if (statement && names.add(m.getName())) {
                    found.add(dialect == c ? m : method(dialect, m));
                }
            }
        }
        found.sort(Comparator.comparing(Method::getName));
        return found;
    }

    private static Method method(Class<?> dialect, Method declared) {
        try {
            return dialect.getDeclaredMethod(declared.getName(), declared.getParameterTypes());
        } catch (NoSuchMethodException inherited) {
            return declared;
        }
    }

    private static List<Object> arguments(Method m) {
        if (m.getParameterCount() == 0) {
            return java.util.Collections.singletonList(null);
        }
        return m.getParameterTypes()[0] == int.class ? List.of(BATCH) : List.copyOf(WAITS);
    }

    private static String describe(Method m, Object arg) {
        if (arg instanceof Duration wait) {
            return " (wait " + wait.toMillis() + " ms)";
        }
        return arg == null ? "" : " (batch " + arg + ")";
    }
}

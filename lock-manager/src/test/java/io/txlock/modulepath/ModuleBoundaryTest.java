package io.txlock.modulepath;

import static io.txlock.modulepath.ClassPathEntries.jar;
import static io.txlock.modulepath.ClassPathEntries.jarOrDirectory;
import static java.util.stream.Collectors.toSet;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.module.Configuration;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleDescriptor.Requires;
import java.lang.module.ModuleFinder;
import java.lang.module.ResolvedModule;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The boundary module-path users get, read from the module descriptors of the build's output: io.txlock exports the
 * API, the SPI and the provider and integration packages, not the core, opens only what CDI injects, and needs only java.sql, java.naming, SLF4J
 * and the DDL module at run time; io.txlock.sql opens its script packages; io.txlock.entity is open to JPA providers.
 */
class ModuleBoundaryTest {

    private static final ModuleFinder BUILT = ModuleFinder.of(
            Path.of(jarOrDirectory("txlock-lock-manager", "lock-manager/target/classes")),
            Path.of(jarOrDirectory("txlock-sql", "sql/target/classes")),
            Path.of(jarOrDirectory("txlock-jpa-entities", "jpa-entities/target/classes")));

    @Test
    void txlockExportsTheApiSpiAndProviderPackagesButNotTheCore() {
        ModuleDescriptor txlock = descriptor("io.txlock");

        assertThat(txlock.isAutomatic()).isFalse();
        assertThat(txlock.isOpen()).isFalse();
        assertThat(txlock.exports()).allSatisfy(e -> assertThat(e.isQualified()).as(e.toString()).isFalse());
        assertThat(txlock.exports().stream().map(ModuleDescriptor.Exports::source)).containsExactlyInAnyOrder(
                "io.txlock", "io.txlock.spi", "io.txlock.jdbc", "io.txlock.jpa", "io.txlock.jta", "io.txlock.cdi",
                "io.txlock.micrometer");
        assertThat(txlock.packages()).contains("io.txlock.core");
        assertThat(txlock.opens().stream().map(ModuleDescriptor.Opens::source)).containsExactly("io.txlock.cdi");
    }

    @Test
    void txlockNeedsOnlyJavaSqlJavaNamingSlf4jAndTheDdlAtRunTime() {
        Set<String> mandatory = descriptor("io.txlock").requires().stream()
                .filter(r -> !r.modifiers().contains(Requires.Modifier.STATIC)).map(Requires::name).collect(toSet());

        assertThat(mandatory).containsExactlyInAnyOrder("java.base", "java.sql", "java.naming", "org.slf4j",
                "io.txlock.sql");
    }

    @Test
    void txlockResolvesAndBindsWithoutJakartaJpaOrMicrometer() {
        ModuleFinder finder = ModuleFinder.compose(BUILT, ModuleFinder.of(Path.of(jar("slf4j-api"))));

        Configuration resolved = ModuleLayer.boot().configuration().resolveAndBind(finder, ModuleFinder.of(),
                Set.of("io.txlock"));

        assertThat(resolved.modules().stream().map(ResolvedModule::name))
                .containsExactlyInAnyOrder("io.txlock", "io.txlock.sql", "org.slf4j");
    }

    @Test
    void theDdlModuleOpensEveryScriptPackageAndTheEntityModuleIsOpen() {
        ModuleDescriptor sql = descriptor("io.txlock.sql");

        assertThat(sql.isAutomatic()).isFalse();
        assertThat(sql.opens()).allSatisfy(o -> assertThat(o.isQualified()).as(o.toString()).isFalse());
        assertThat(sql.opens().stream().map(ModuleDescriptor.Opens::source).collect(toSet()))
                .isEqualTo(sql.packages())
                .containsExactlyInAnyOrder("io.txlock.sql.h2", "io.txlock.sql.mariadb", "io.txlock.sql.mysql",
                        "io.txlock.sql.postgresql");
        assertThat(descriptor("io.txlock.entity").isOpen()).isTrue();
    }

    private static ModuleDescriptor descriptor(String module) {
        return BUILT.find(module).orElseThrow(() -> new AssertionError(module + " is not in " + BUILT.findAll()))
                .descriptor();
    }
}

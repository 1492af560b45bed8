package io.txlock.modulepath;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;

/** The test run's class path entries: the directories and jars the module-path tests put on a module path. */
final class ClassPathEntries {

    private static final List<String> CLASS_PATH =
            Arrays.asList(System.getProperty("java.class.path").split(File.pathSeparator));

    private ClassPathEntries() {
    }

    /** @return the one entry that is the jar of {@code artifact} or the reactor's {@code directory} (slashes) */
    static String jarOrDirectory(String artifact, String directory) {
        return one(isJarOf(artifact).or(isDirectory(directory)), artifact + " or " + directory);
    }

    /** @return the one entry that is the jar of {@code artifact} */
    static String jar(String artifact) {
        return one(isJarOf(artifact), artifact);
    }

    /** @return the one entry that is the reactor's {@code directory} (slashes) */
    static String directory(String directory) {
        return one(isDirectory(directory), directory);
    }

    private static String one(Predicate<String> which, String what) {
        List<String> found = CLASS_PATH.stream().filter(which).toList();
        assertThat(found).as("class path entries %s in %s", what, CLASS_PATH).hasSize(1);
        return found.get(0);
    }

    private static Predicate<String> isDirectory(String directory) {
        String dir = directory.replace('/', File.separatorChar);
        return entry -> entry.endsWith(dir);
    }

    private static Predicate<String> isJarOf(String artifact) {
        return entry -> {
            String file = Path.of(entry).getFileName().toString();
            return file.startsWith(artifact + "-") && file.endsWith(".jar") && !file.endsWith("-tests.jar");
        };
    }
}

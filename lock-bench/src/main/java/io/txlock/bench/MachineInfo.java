package io.txlock.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The machine a run measured, as the report states it: CPU, cores, memory, OS, Java, and the load average.
 *
 * @param cpu the CPU model
 * @param cores available processors
 * @param memory total memory
 * @param os operating system and kernel
 * @param javaVersion Java version and VM
 */
public record MachineInfo(String cpu, int cores, String memory, String os, String javaVersion) {

    /** @return this machine */
    public static MachineInfo current() {
        return new MachineInfo(cpuModel(), Runtime.getRuntime().availableProcessors(), totalMemory(),
                System.getProperty("os.name") + " " + System.getProperty("os.version") + " " + System.getProperty("os.arch"),
                "Java " + System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + " "
                        + System.getProperty("java.vm.version") + ")");
    }

    /** @return one line: "2 cores (Intel Xeon), 23.4 GiB, Linux 6.1, Java 17.0.15" */
    public String describe() {
        return cores + " cores (" + cpu + "), " + memory + ", " + os + ", " + javaVersion;
    }

    /** @return the 1/5/15-minute load averages, or "unknown" where /proc/loadavg does not exist */
    public static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static String cpuModel() {
        return procLine("/proc/cpuinfo", "model name").orElse(System.getProperty("os.arch"));
    }

    private static String totalMemory() {
        return procLine("/proc/meminfo", "MemTotal").map(v -> {
            long kib = Long.parseLong(v.replaceAll("[^0-9]", ""));
            return String.format(Locale.ROOT, "%.1f GiB RAM", kib / 1024.0 / 1024.0);
        }).orElse(Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB heap");
    }

    private static java.util.Optional<String> procLine(String file, String key) {
        try {
            List<String> lines = Files.readAllLines(Path.of(file));
            return lines.stream().filter(l -> l.startsWith(key)).map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst();
        } catch (IOException | RuntimeException e) {
            return java.util.Optional.empty();
        }
    }
}

package io.txlock.chaos;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * The whole suite: the resource's private PostgreSQL (never faulted), then each run of {@link ChaosSettings}, each
 * backend's servers started once for all its strategies. Writes {@code chaos-report.md} (the table and every run's
 * details) to the settings' directory.
 */
final class ChaosSuite implements AutoCloseable {

    private final ChaosSettings settings;
    private final PrivatePostgres resourceServer;
    private final Resource resource;
    private final List<ChaosRun.Result> results = new ArrayList<>();
    private ChaosBackend backend;

    ChaosSuite(ChaosSettings settings) throws Exception {
        this.settings = settings;
        for (String own : List.of("servers", "resource-postgresql", "runs")) {
            Os.deleteTree(settings.dir().resolve(own));
        }
        Files.createDirectories(settings.dir());
        resourceServer = PrivatePostgres.start(settings.dir().resolve("resource-postgresql"));
        Resource.createTables(resourceServer.url());
        resource = new Resource(resourceServer.url());
    }

    /**
     * Runs one backend and strategy, starting the backend's servers if the previous run used another backend.
     *
     * @return what the checker found
     */
    ChaosRun.Result run(ChaosSettings.Run run) throws Exception {
        if (backend == null || !backend.name().equals(run.backend())) {
            closeBackend();
            backend = Backends.named(run.backend());
            backend.start(settings.dir().resolve("servers").resolve(run.backend()));
        }
        String id = run.backend() + "-" + run.strategy().toLowerCase() + "-" + Long.toString(System.currentTimeMillis(), 36);
        ChaosRun.Result result = new ChaosRun(backend, run.strategy(), settings, resource, resourceServer.url(),
                settings.dir().resolve("runs").resolve(id)).execute();
        results.add(result);
        writeReport();
        return result;
    }

    List<ChaosRun.Result> results() {
        return List.copyOf(results);
    }

    /** @return the report's path */
    Path writeReport() throws Exception {
        StringBuilder out = new StringBuilder("# Chaos run, ").append(Instant.now()).append("\n\n")
                .append("duration per run ").append(settings.duration()).append(", ").append(settings.holders())
                .append(" holder JVMs, lease ").append(settings.lease()).append(", slack ").append(settings.slack())
                .append("\n\n").append(Report.table(results)).append('\n');
        results.forEach(r -> out.append("```\n").append(Report.details(r)).append("```\n"));
        Path file = settings.dir().resolve("chaos-report.md");
        Files.writeString(file, out);
        return file;
    }

    private void closeBackend() {
        if (backend != null) {
            backend.close();
            backend = null;
        }
    }

    @Override
    public void close() {
        closeBackend();
        resource.close();
        resourceServer.close();
    }
}

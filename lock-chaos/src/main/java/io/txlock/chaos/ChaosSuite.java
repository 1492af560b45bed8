package io.txlock.chaos;

import io.txlock.servers.Os;
import io.txlock.servers.PrivatePostgres;
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
        Runtime.getRuntime().addShutdownHook(new Thread(this::close, "chaos-servers-down"));
    }

    /**
     * Runs one backend and strategy, starting the backend's servers if the previous run used another backend.
     *
     * @return what the checker found
     */
    ChaosRun.Result run(ChaosSettings.Run run) throws Exception {
        ChaosRun.Result result = run(Backends.named(run.backend()), run.strategy());
        results.add(result);
        writeReport();
        return result;
    }

    /**
     * Runs a backend that is not necessarily one of {@link Backends} (a test's), without adding it to the report.
     *
     * @param fresh a new instance of the backend: it replaces the current one unless that has the same name
     * @param strategy one of its strategies
     * @return what the checker found
     */
    ChaosRun.Result run(ChaosBackend fresh, String strategy) throws Exception {
        if (backend == null || !backend.name().equals(fresh.name())) {
            closeBackend();
            backend = fresh;
            Path servers = settings.dir().resolve("servers").resolve(fresh.name());
            Os.deleteTree(servers);
            backend.start(servers);
        }
        String id = backend.name() + "-" + strategy.toLowerCase() + "-" + Long.toString(System.currentTimeMillis(), 36);
        return new ChaosRun(backend, strategy, settings, resource, resourceServer.url(),
                settings.dir().resolve("runs").resolve(id)).execute();
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

    private synchronized void closeBackend() {
        if (backend != null) {
            backend.close();
            backend = null;
        }
    }

    /** Stops every server the suite started; again (from the shutdown hook) it does nothing more. */
    @Override
    public synchronized void close() {
        closeBackend();
        resource.close();
        resourceServer.close();
    }
}

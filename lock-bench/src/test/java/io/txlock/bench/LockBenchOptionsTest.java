package io.txlock.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

class LockBenchOptionsTest {

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return LockBench.execute(args, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    /** The configuration a command line asks for, without running anything. */
    private static BenchConfig config(String... args) {
        LockBench bench = new LockBench(System.out, System.err, args);
        new CommandLine(bench).parseArgs(args);
        return bench.config();
    }

    private static BackendSpec spec(BenchConfig config, BackendKind kind) {
        return config.backends().stream().filter(b -> b.kind() == kind).findFirst().orElseThrow();
    }

    @Test
    void readsDurationsAsPeopleWriteThem() {
        LockBench.DurationConverter convert = new LockBench.DurationConverter();

        assertThat(convert.convert("2s")).isEqualTo(Duration.ofSeconds(2));
        assertThat(convert.convert("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(convert.convert("1.5s")).isEqualTo(Duration.ofMillis(1500));
        assertThat(convert.convert("250us")).isEqualTo(Duration.ofNanos(250_000));
        assertThat(convert.convert("1m")).isEqualTo(Duration.ofMinutes(1));
        assertThat(convert.convert("PT3S")).isEqualTo(Duration.ofSeconds(3));
        assertThat(convert.convert("7")).isEqualTo(Duration.ofSeconds(7));
        assertThatThrownBy(() -> convert.convert("soon")).isInstanceOf(CommandLine.TypeConversionException.class)
                .hasMessageContaining("2s, 500ms");
    }

    @Test
    void refusesAKillWithoutWorkerJvmsToKill() {
        assertThat(run("--kill-holder")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--processes");
    }

    @Test
    void refusesOneJdbcUrlForTwoDatabases() {
        assertThat(run("--backend", "postgresql,mariadb", "--jdbc-url", "jdbc:postgresql://db/app")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("exactly one JDBC backend");
    }

    @Test
    void refusesAnAddressForABackendThatDoesNotRun() {
        assertThat(run("--redis", "10.0.0.5:6379")).isEqualTo(2);
        assertThat(run("--backend", "postgresql,redis", "--zookeeper", "zk1:2181")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("add redis to --backend")
                .contains("add zookeeper to --backend");
    }

    @Test
    void namesTheValidChoicesOfABadBackendStrategyOrScenario() {
        assertThat(run("--backend", "oracle")).isEqualTo(2);
        assertThat(run("--strategy", "PESSIMISTIC")).isEqualTo(2);
        assertThat(run("--scenarios", "bank")).isEqualTo(2);

        assertThat(err.toString(StandardCharsets.UTF_8)).contains("h2, postgresql, mariadb, mysql, redis, zookeeper, etcd, none")
                .contains("SELECT_FOR_UPDATE, OPTIMISTIC_VERSION, UNIQUE_INSERT").contains("[orders, counter, keys, handoff]");
    }

    @Test
    void pointsRedisAtTheGivenMaster() {
        BenchConfig config = config("--backend", "redis,h2", "--redis", "10.0.0.5:6380");

        assertThat(spec(config, BackendKind.REDIS).url()).isEqualTo("10.0.0.5:6380");
        assertThat(spec(config, BackendKind.H2).url()).as("only the Redis backend takes --redis").isNull();
        assertThat(config("--backend", "redis", "--redis", "redis.internal:6379").backends())
                .extracting(BackendSpec::url).containsExactly("redis.internal:6379");
        assertThat(config("--backend", "redis", "--redis", "[::1]:6379").backends())
                .extracting(BackendSpec::url).containsExactly("[::1]:6379");
        assertThat(config("--backend", "redis").backends()).as("default: 127.0.0.1:6379")
                .extracting(BackendSpec::url).containsExactly((String) null);
    }

    @Test
    void pointsZooKeeperAtTheGivenEnsembleInsteadOfAnEmbeddedServer() {
        BenchConfig ensemble = config("--backend", "zookeeper", "--zookeeper", "zk1:2181,zk2:2181,zk3:2181");
        BenchConfig chrooted = config("--backend", "zookeeper,redis", "--zookeeper", "127.0.0.1:2181/apps/txlock");
        BenchConfig defaultPort = config("--backend", "zookeeper", "--zookeeper", "zk1,zk2:2182");
        BenchConfig asZooKeeperReadsIt = config("--backend", "zookeeper", "--zookeeper", "zk1:2181, zk2:2181,/");

        assertThat(spec(ensemble, BackendKind.ZOOKEEPER).url()).isEqualTo("zk1:2181,zk2:2181,zk3:2181");
        assertThat(spec(chrooted, BackendKind.ZOOKEEPER).url()).isEqualTo("127.0.0.1:2181/apps/txlock");
        assertThat(spec(chrooted, BackendKind.REDIS).url()).as("only the ZooKeeper backend takes --zookeeper").isNull();
        assertThat(spec(defaultPort, BackendKind.ZOOKEEPER).url()).isEqualTo("zk1,zk2:2182");
        assertThat(spec(asZooKeeperReadsIt, BackendKind.ZOOKEEPER).url()).as("blanks and empty entries skipped, '/' is no chroot")
                .isEqualTo("zk1:2181, zk2:2181,/");
        assertThat(spec(config("--backend", "zookeeper"), BackendKind.ZOOKEEPER).url()).as("default: embedded").isNull();
    }

    @Test
    void pointsEtcdAtTheGivenClusterInsteadOfAPrivateServer() {
        BenchConfig cluster = config("--backend", "etcd,redis", "--etcd", "http://etcd1:2379, http://etcd2:2379,https://[::1]:2379");

        assertThat(spec(cluster, BackendKind.ETCD).url()).isEqualTo("http://etcd1:2379,http://etcd2:2379,https://[::1]:2379");
        assertThat(spec(cluster, BackendKind.REDIS).url()).as("only the etcd backend takes --etcd").isNull();
        assertThat(spec(config("--backend", "etcd"), BackendKind.ETCD).url()).as("default: a private server").isNull();
        assertThat(run("--backend", "h2", "--etcd", "http://127.0.0.1:2379")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("add etcd to --backend");
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1:2379", "http://127.0.0.1", "http://127.0.0.1:0", "http://127.0.0.1:65536",
        "etcd://127.0.0.1:2379", "http://127.0.0.1:2379,", ""})
    void refusesEtcdEndpointsThatAreNotClientUrls(String bad) {
        assertThat(run("--backend", "etcd", "--etcd", bad)).as(bad).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--etcd must be client URLs").contains("'" + bad + "'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "127.0.0.1:", ":6379", "localhost:port", "localhost:0", "localhost:65536",
        "localhost:6379,localhost:6380", "redis://localhost:6379", "local host:6379", ""})
    void refusesARedisAddressThatIsNotHostColonPort(String bad) {
        assertThat(run("--backend", "redis", "--redis", bad)).as(bad).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--redis must be HOST:PORT").contains("'" + bad + "'")
                .contains("e.g. 127.0.0.1:6379");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", ",", "zk1:twenty", "zk1:0", "zk1:99999", "zk1:2181/apps/", "zk1:2181/apps//txlock", "/txlock",
        "zk1:2181 zk2:2181", "zk1:2181;zk2:2181", "zookeeper://zk1:2181"})
    void refusesAZooKeeperConnectStringItCannotRead(String bad) {
        assertThat(run("--backend", "zookeeper", "--zookeeper", bad)).as(bad).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--zookeeper must be a connect string HOST:PORT[,HOST:PORT...][/chroot]")
                .contains("'" + bad + "'");
    }

    @Test
    void badAddressesAreRefusedBeforeAnyBackendIsTried() {
        assertThat(run("--backend", "h2,redis", "--redis", "nowhere", "--scenarios", "counter")).isEqualTo(2);
        assertThat(run("--backend", "h2,zookeeper", "--zookeeper", "zk1:x", "--scenarios", "counter")).isEqualTo(2);

        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("lock-bench: --redis must be HOST:PORT")
                .contains("lock-bench: --zookeeper must be").doesNotContain("could not run").doesNotContain("h2:");
    }
}

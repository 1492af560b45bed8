package io.txlock.bench;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The backends the bench runs on, as named by {@code --backend}. */
public enum BackendKind {
    /** Embedded H2, in memory, in this JVM (served over TCP to worker JVMs): needs nothing installed. */
    H2("jdbc:h2:mem:", "sa"),
    /** PostgreSQL, by default the local server's {@code test} database. */
    POSTGRESQL("jdbc:postgresql://127.0.0.1:5432/test", "postgres"),
    /** MariaDB with the MariaDB driver, by default the local server's {@code test} database. */
    MARIADB("jdbc:mariadb://127.0.0.1:3306/test", "root"),
    /** MySQL with MySQL Connector/J; by default it talks to the local MariaDB, the MySQL-compatible server here. */
    MYSQL("jdbc:mysql://127.0.0.1:3306/test", "root"),
    /** Redis through Jedis, one master; by default the local server at 127.0.0.1:6379. */
    REDIS(null, null),
    /** ZooKeeper through Curator; without {@code --zookeeper}, an embedded server (curator-test) in this JVM. */
    ZOOKEEPER(null, null),
    /** etcd through jetcd; without {@code --etcd}, a private {@code etcd} server started by the bench. */
    ETCD(null, null),
    /**
     * No lock at all: every acquire is granted at once, with tokens of its own. A deliberately broken lock, to
     * see the checker fail.
     */
    NONE(null, null);

    private final String defaultUrl;
    private final String defaultUser;

    BackendKind(String defaultUrl, String defaultUser) {
        this.defaultUrl = defaultUrl;
        this.defaultUser = defaultUser;
    }

    /** @return the JDBC URL used when none is given, or null for a backend without one */
    public String defaultUrl() {
        return defaultUrl;
    }

    /** @return the user used when none is given */
    public String defaultUser() {
        return defaultUser;
    }

    /** @return whether locks and orders live in a SQL database reached through JDBC */
    public boolean isJdbc() {
        return defaultUrl != null;
    }

    /** @return the name on the command line */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @param name a command-line name, any case
     * @return the kind
     * @throws IllegalArgumentException listing the valid names
     */
    public static BackendKind parse(String name) {
        for (BackendKind k : values()) {
            if (k.cliName().equalsIgnoreCase(name.strip())) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown backend '" + name + "': use one of "
                + Arrays.stream(values()).map(BackendKind::cliName).collect(Collectors.joining(", ")));
    }
}

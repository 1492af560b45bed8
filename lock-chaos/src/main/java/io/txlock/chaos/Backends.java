package io.txlock.chaos;

import java.util.List;
import java.util.function.Supplier;

/** The backends the suite knows, by name. Adding one (etcd) is one line here and one {@link ChaosBackend} class. */
final class Backends {

    private static final List<Supplier<ChaosBackend>> ALL = List.of(
            PostgresBackend::new, MariaDbBackend::new, RedisBackend::new, ZooKeeperBackend::new, EtcdBackend::new);

    private Backends() {
    }

    /** @return a new instance of every backend */
    static List<ChaosBackend> all() {
        return ALL.stream().map(Supplier::get).toList();
    }

    /**
     * @param name a backend's {@link ChaosBackend#name()}
     * @return a new instance of it
     */
    static ChaosBackend named(String name) {
        return all().stream().filter(b -> b.name().equals(name)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown chaos backend '" + name + "': use one of "
                        + all().stream().map(ChaosBackend::name).toList()));
    }
}

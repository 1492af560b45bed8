package io.txlock.etcd;

import io.etcd.jetcd.Client;
import io.txlock.LockBackendException;
import io.txlock.spi.Attempt;
import io.txlock.spi.GrantListener;
import io.txlock.spi.LockOwner;
import io.txlock.spi.LockProvider;
import io.txlock.spi.LockRequest;
import io.txlock.testkit.ProviderFactory;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Builds an {@link EtcdLockProvider} that owns its jetcd client, from
 * {@code endpoints=<url,url...>;prefix=</prefix/>;timeoutMs=<request timeout>[;warmUp=false]}. Like an application
 * that connects before it serves, it takes, renews and releases one lock of its own before it returns the provider
 * (unless {@code warmUp=false}): in a fresh JVM on a loaded machine, connecting and loading jetcd's classes takes
 * seconds, which would otherwise be spent from the first lock's lease.
 */
public final class EtcdProviderFactory implements ProviderFactory {

    /** Request timeout of the test providers: how soon an unreachable etcd is reported. */
    static final int TIMEOUT_MS = 3000;

    /**
     * @param endpoints the members' client URLs, comma-separated
     * @param prefix the key prefix
     * @return a configuration for {@link #create(String)}
     */
    public static String config(String endpoints, String prefix) {
        return "endpoints=" + endpoints + ";prefix=" + prefix + ";timeoutMs=" + TIMEOUT_MS;
    }

    @Override
    public LockProvider create(String config) {
        Map<String, String> settings = new HashMap<>();
        for (String pair : config.split(";")) {
            int eq = pair.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("expected key=value in '" + config + "', found '" + pair + "'");
            }
            settings.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
        Duration timeout = Duration.ofMillis(Long.parseLong(settings.getOrDefault("timeoutMs", String.valueOf(TIMEOUT_MS))));
        Client client = Client.builder().endpoints(required(settings, "endpoints").split(","))
                .connectTimeout(timeout).build();
        EtcdLockProvider provider = EtcdLockProvider.builder(client).keyPrefix(required(settings, "prefix"))
                .requestTimeout(timeout).closeClient(true).build();
        if (!"false".equals(settings.get("warmUp"))) {
            warmUp(provider);
        }
        return provider;
    }

    private static void warmUp(EtcdLockProvider provider) {
        try {
            Attempt attempt = provider.tryAcquire(new LockRequest("factory-warm-up-" + UUID.randomUUID(),
                    new LockOwner("factory", "warm-up", "main"), Duration.ofSeconds(5), Duration.ZERO, false, GrantListener.NONE));
            if (attempt.isGranted()) {
                provider.renew(attempt.grant(), Duration.ofSeconds(5));
                provider.release(attempt.grant());
            }
        } catch (LockBackendException e) {
            // etcd is not reachable (yet): the caller's own lock calls will say so
        }
    }

    private static String required(Map<String, String> settings, String key) {
        String value = settings.get(key);
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("missing " + key + "=… in the etcd provider configuration");
        }
        return value;
    }
}

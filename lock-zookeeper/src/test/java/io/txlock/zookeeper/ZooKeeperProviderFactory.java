package io.txlock.zookeeper;

import io.txlock.spi.LockProvider;
import io.txlock.testkit.ProviderFactory;
import java.util.HashMap;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryNTimes;

/**
 * Builds a {@link ZooKeeperLockProvider} that owns its Curator client, from
 * {@code connect=<host:port,...>;basePath=</path>;sessionTimeoutMs=<ms>;connectionTimeoutMs=<ms>}.
 */
public final class ZooKeeperProviderFactory implements ProviderFactory {

    /**
     * @param connectString the ensemble
     * @param basePath where the locks live
     * @param sessionTimeoutMs the client's session timeout
     * @return a configuration for {@link #create(String)}
     */
    public static String config(String connectString, String basePath, int sessionTimeoutMs) {
        return "connect=" + connectString + ";basePath=" + basePath + ";sessionTimeoutMs=" + sessionTimeoutMs
                + ";connectionTimeoutMs=" + ZooKeeperTesting.CONNECTION_TIMEOUT_MS;
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
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(required(settings, "connect"))
                .sessionTimeoutMs(Integer.parseInt(settings.getOrDefault("sessionTimeoutMs", "4000")))
                .connectionTimeoutMs(Integer.parseInt(settings.getOrDefault("connectionTimeoutMs", "3000")))
                .retryPolicy(new RetryNTimes(1, 100))
                .build();
        client.start();
        return ZooKeeperLockProvider.builder(client)
                .basePath(required(settings, "basePath"))
                .closeClient(true)
                .build();
    }

    private static String required(Map<String, String> settings, String key) {
        String value = settings.get(key);
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException("missing " + key + "=… in the ZooKeeper provider configuration");
        }
        return value;
    }
}

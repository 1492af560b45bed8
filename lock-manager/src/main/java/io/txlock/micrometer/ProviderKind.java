package io.txlock.micrometer;

import io.txlock.spi.LockProvider;
import java.util.Locale;

/** A provider's short kind, the {@code provider} tag of meters and observations; names no Micrometer type. */
final class ProviderKind {

    private ProviderKind() {
    }

    /**
     * @param provider a provider
     * @return its short kind, from its class name: {@code JdbcLockProvider} is {@code jdbc}, {@code RedisLockProvider}
     *     {@code redis}; {@code custom} for an anonymous class
     */
    static String of(LockProvider provider) {
        String name = provider.getClass().getSimpleName();
        for (String suffix : new String[] {"LockProvider", "Provider"}) {
            if (name.endsWith(suffix) && name.length() > suffix.length()) {
                name = name.substring(0, name.length() - suffix.length());
                break;
            }
        }
        return name.isEmpty() ? "custom" : name.toLowerCase(Locale.ROOT);
    }
}

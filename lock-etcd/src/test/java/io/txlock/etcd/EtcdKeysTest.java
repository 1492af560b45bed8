package io.txlock.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.Client;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Key names, TTLs and the builder's checks; no server needed. */
class EtcdKeysTest {

    @Test
    void encodedNamesKeepReadableCharactersAndNeverHoldASlash() {
        assertThat(EtcdKeys.encode("order:42")).isEqualTo("order:42");
        assertThat(EtcdKeys.encode("a/b c")).isEqualTo("a%2Fb%20c");
        assertThat(EtcdKeys.encode("100%")).isEqualTo("100%25");
        assertThat(EtcdKeys.encode("Straße")).isEqualTo("Stra%C3%9Fe");
        assertThat(EtcdKeys.encode("/")).doesNotContain("/");
    }

    @Test
    void keysOfOneNameAreNeverInTheRangeOfAnother() {
        EtcdKeys keys = new EtcdKeys("/txlock/");
        assertThat(keys.key("a", 255).startsWith(keys.range("a"))).isTrue();
        assertThat(keys.key("ab", 255).startsWith(keys.range("a"))).isFalse();
        assertThat(keys.key("a/b", 255).startsWith(keys.range("a"))).isFalse();
        assertThat(keys.key("a", 255).toString(java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("/txlock/a/00000000000000ff");
    }

    @Test
    void ttlIsTheLeaseRoundedUpToWholeSeconds() {
        assertThat(EtcdLockProvider.ttlSeconds(Duration.ofMillis(1))).isEqualTo(1);
        assertThat(EtcdLockProvider.ttlSeconds(Duration.ofSeconds(2))).isEqualTo(2);
        assertThat(EtcdLockProvider.ttlSeconds(Duration.ofMillis(2001))).isEqualTo(3);
        assertThat(EtcdLockProvider.ttlSeconds(Duration.ofDays(365 * 1000))).isEqualTo(9_000_000_000L);
    }

    @Test
    void builderRefusesBadInputSayingWhatToFix() {
        assertThatThrownBy(() -> EtcdLockProvider.builder(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("client");
        try (Client client = Client.builder().endpoints("http://127.0.0.1:1").build()) {
            EtcdLockProvider.Builder builder = EtcdLockProvider.builder(client);
            for (String bad : new String[] {null, "", "  ", "/txlock"}) {
                assertThatThrownBy(() -> builder.keyPrefix(bad)).isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("keyPrefix").hasMessageContaining("'/'");
            }
            assertThatThrownBy(() -> builder.requestTimeout(null)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("requestTimeout");
            assertThatThrownBy(() -> builder.requestTimeout(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("1 ms");
            try (EtcdLockProvider provider = builder.keyPrefix("/app/locks/").build()) {
                assertThat(provider.describe()).contains("/app/locks/");
            }
        }
    }
}

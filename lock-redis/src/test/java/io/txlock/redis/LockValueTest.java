package io.txlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.spi.LockOwner;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The claims the client chooses and the values the scripts write, read back without a server. */
class LockValueTest {

    private static final LockOwner OWNER = new LockOwner("host with spaces/ü", "manager-1", "t1:main");

    @Test
    void everyClaimHasAGrantIdOfItsOwnAndReadsBackAsItsOwner() {
        Set<String> grantIds = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            String claim = LockValue.newClaim(OWNER);
            LockValue value = LockValue.parse("12 34 " + claim);
            assertThat(grantIds.add(value.grantId())).as("grant id %s is new", value.grantId()).isTrue();
            assertThat(value.grantId()).doesNotContain(" ");
            assertThat(value.host()).isEqualTo(OWNER.host());
            assertThat(value.ownerId()).isEqualTo(OWNER.id());
        }
    }

    @Test
    void anotherHostIsEncodedForItself() {
        LockValue.newClaim(OWNER);
        LockOwner elsewhere = new LockOwner("other host", "manager-2", "t1:main");
        assertThat(LockValue.parse("1 2 " + LockValue.newClaim(elsewhere)).host()).isEqualTo("other host");
        assertThat(LockValue.parse("1 2 " + LockValue.newClaim(OWNER)).host()).isEqualTo(OWNER.host());
    }

    @Test
    void theTokenIsReadWithoutParsingTheRest() {
        String value = "1764152000123456 1764152000123 " + LockValue.newClaim(OWNER);
        assertThat(LockValue.tokenOf(value)).isEqualTo(LockValue.parse(value).token()).isEqualTo(1764152000123456L);
        assertThatThrownBy(() -> LockValue.tokenOf("not a token")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a txlock lock value");
    }
}

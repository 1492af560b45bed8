package io.txlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;

import io.txlock.spi.LockOwner;
import java.util.List;
import org.junit.jupiter.api.Test;

class LockNodesTest {

    private static String node(String uuid, int sequence) {
        // ZooKeeper names sequential nodes with String.format("%010d", parent's cversion)
        return "_c_" + uuid + "-" + LockNodes.NODE_NAME + String.format("%010d", sequence);
    }

    @Test
    void queuesBySequenceNotByProtectionPrefix() {
        List<String> children = List.of(node("ffff", 12), node("0000", 13), node("aaaa", 3), "not-a-lock-node", "lock-x");
        assertThat(LockNodes.queue(children)).containsExactly(node("aaaa", 3), node("ffff", 12), node("0000", 13));
    }

    @Test
    void keepsQueueOrderAcrossTheSequenceWrap() {
        // after 2^31 child changes the parent's counter wraps: "-2147483648" comes after "2147483647"
        String last = node("b", Integer.MAX_VALUE);
        String wrapped = node("c", Integer.MIN_VALUE);
        String next = node("d", Integer.MIN_VALUE + 1);
        String before = node("a", Integer.MAX_VALUE - 1);
        assertThat(wrapped).endsWith("lock--2147483648");

        assertThat(LockNodes.queue(List.of(next, wrapped, last, before))).containsExactly(before, last, wrapped, next);
    }

    @Test
    void ownerDataRoundTrips() {
        LockOwner owner = new LockOwner("host-1", "abc", "t7:worker\nwith newline");
        assertThat(LockNodes.owner(LockNodes.ownerData(owner)))
                .isEqualTo(new LockNodes.Owner("host-1", "abc/t7:worker\nwith newline"));
        assertThat(LockNodes.owner(new byte[0])).isEqualTo(new LockNodes.Owner("", ""));
    }
}

package io.txlock.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.core.LockNames;
import io.txlock.spi.TransactionSupport;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.common.PathUtils;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ZNodeNamesTest {

    static List<String> awkwardNames() {
        return List.of(
                "order:42",
                "a/b/c",
                "/",
                "//leading/and/trailing//",
                ".",
                "..",
                ".hidden",
                "zookeeper",
                "with space",
                "quote\"s and 'single' and `back`",
                "percent %2F literal",
                "100%",
                "tab\tand\u0001control\u007f",
                "Grüße aus Köln",
                "日本語のロック",
                "emoji 🔒🗝️",
                "nbsp\u00a0inside\u2028here",
                "private \ue000 area and \ufff0 specials",
                "x".repeat(LockNames.MAX_LENGTH),
                "🔒".repeat(LockNames.MAX_LENGTH));
    }

    @ParameterizedTest
    @MethodSource("awkwardNames")
    void encodesEveryValidNameIntoOneValidZnodeNameAndBack(String name) {
        LockNames.validate(name);
        String encoded = ZNodeNames.encode(name);

        assertThat(encoded).doesNotContain("/").isNotIn(".", "..");
        PathUtils.validatePath("/" + encoded);
        assertThat(encoded).matches("[A-Za-z0-9\\-_.~:@+=,%]+");
        assertThat(ZNodeNames.decode(encoded)).isEqualTo(name);
    }

    @Test
    void keepsCommonNamesReadable() {
        assertThat(ZNodeNames.encode("order:42")).isEqualTo("order:42");
        assertThat(ZNodeNames.encode("tenant-7.invoice_2026")).isEqualTo("tenant-7.invoice_2026");
        assertThat(ZNodeNames.encode("a/b c")).isEqualTo("a%2Fb%20c");
        assertThat(ZNodeNames.encode("..")).isEqualTo("%2E.");
        assertThat(ZNodeNames.encode("ä")).isEqualTo("%C3%A4");
    }

    @Test
    void differentNamesNeverShareANode() {
        List<String> names = List.of("a/b", "a%2Fb", "a%252Fb", "a b", "a+b", "a%20b", ".a", "%2Ea");
        List<String> encoded = names.stream().map(ZNodeNames::encode).collect(Collectors.toList());
        assertThat(encoded).doesNotHaveDuplicates();
    }

    @Test
    void refusesWhatItNeverProduced() {
        assertThatThrownBy(() -> ZNodeNames.decode("a b")).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("index 1");
        assertThatThrownBy(() -> ZNodeNames.decode("abc%2")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ZNodeNames.decode("%zz")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ZNodeNames.decode("%C3")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("UTF-8");
    }

    // ---- against a real server: ZooKeeper accepts the nodes, and locks on awkward names are distinct

    private static TestingServer server;
    private static CuratorFramework client;

    @BeforeAll
    static void startServer() throws Exception {
        server = ZooKeeperTesting.server();
        client = ZooKeeperTesting.client(server.getConnectString());
    }

    @AfterAll
    static void stopServer() throws Exception {
        client.close();
        server.close();
    }

    @Test
    void realServerStoresEveryAwkwardNameAsItsOwnLock() throws Exception {
        String basePath = ZooKeeperTesting.randomBasePath();
        List<String> names = awkwardNames();
        try (LockManager locks = LockManager.builder(ZooKeeperLockProvider.builder(client).basePath(basePath).build())
                .transactions(TransactionSupport.none()).build()) {
            List<LockHandle> handles = names.stream().map(locks::acquire).collect(Collectors.toList());

            List<String> lockNodes = client.getChildren().forPath(basePath);
            assertThat(lockNodes.stream().map(ZNodeNames::decode)).containsExactlyInAnyOrderElementsOf(names);
            for (String name : names) {
                assertThat(locks.inspect(name)).get().satisfies(info -> assertThat(info.name()).isEqualTo(name));
            }
            handles.forEach(LockHandle::release);
        }
    }
}

package io.txlock.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.txlock.LockBackendException;
import io.txlock.LockHandle;
import io.txlock.LockManager;
import io.txlock.LockOptions;
import io.txlock.spi.TransactionSupport;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;

/** AUTH and TLS are Jedis' own settings, passed through unchanged: locks and hand-offs to waiters work over both. */
class AuthAndTlsTest {

    private static final String PASSWORD = "s3cret-" + UUID.randomUUID();

    @Test
    void thePasswordOfTheJedisConfigIsUsedForLocksAndHandOffs() throws Exception {
        JedisClientConfig withPassword = DefaultJedisClientConfig.builder().password(PASSWORD)
                .connectionTimeoutMillis(1_000).socketTimeoutMillis(1_000).build();
        try (RedisServer server = RedisServer.start(withPassword, "--requirepass", PASSWORD)) {
            locksAndHandOffsWork(server, withPassword, withPassword, "txlock:");

            JedisClientConfig noPassword = DefaultJedisClientConfig.builder().connectionTimeoutMillis(1_000).build();
            try (LockManager locks = LockManager.builder(RedisLockProvider.builder(server.address(), noPassword).build())
                    .transactions(TransactionSupport.none()).build()) {
                assertThatThrownBy(() -> locks.tryAcquire("refused")).isInstanceOf(LockBackendException.class)
                        .hasMessageContaining("NOAUTH");
            }
        }
    }

    /** The README's ACL: the provider needs these commands, keys and channels under its prefix, nothing else. */
    @Test
    void anAclUserLimitedToThePrefixIsEnough() throws Exception {
        JedisClientConfig locker = DefaultJedisClientConfig.builder().user("locker").password(PASSWORD)
                .connectionTimeoutMillis(1_000).socketTimeoutMillis(1_000).build();
        try (RedisServer server = RedisServer.start(locker, "--user", "locker", "on", ">" + PASSWORD, "~app:*", "&app:released*",
                "+evalsha", "+eval", "+get", "+set", "+del", "+exists", "+pexpire", "+pttl", "+time", "+lindex", "+lpop",
                "+rpush", "+lrem", "+lpush", "+blpop", "+lrange", "+lset", "+publish", "+subscribe", "+unsubscribe", "+ping")) {
            locksAndHandOffsWork(server, locker, DefaultJedisClientConfig.builder().build(), "app:");
            try (LockManager locks = LockManager.builder(RedisLockProvider.builder(server.address(), locker).keyPrefix("other:")
                    .build()).transactions(TransactionSupport.none()).build()) {
                assertThatThrownBy(() -> locks.tryAcquire("outside")).isInstanceOf(LockBackendException.class)
                        .hasMessageContaining("NOPERM");
            }
        }
    }

    /**
     * A single master's waiters need no pub/sub. Here the server refuses SUBSCRIBE: a short timed wait still ends at
     * its bound, and a longer one is handed the lock on its list.
     */
    @Test
    void aSubscriptionThatIsNeverConfirmedDoesNotStretchATimedWait() throws Exception {
        JedisClientConfig deaf = DefaultJedisClientConfig.builder().user("deaf").password(PASSWORD)
                .connectionTimeoutMillis(1_000).socketTimeoutMillis(1_000).build();
        try (RedisServer server = RedisServer.start("--user", "deaf", "on", ">" + PASSWORD, "~*", "&*", "+@all", "-subscribe");
                LockManager holder = LockManager.builder(RedisLockProvider.builder(server.address(),
                        DefaultJedisClientConfig.builder().build()).build()).transactions(TransactionSupport.none()).build();
                LockManager waiter = LockManager.builder(RedisLockProvider.builder(server.address(), deaf).build())
                        .transactions(TransactionSupport.none()).build()) {
            LockHandle held = holder.acquire("unheard");
            assertThat(waiter.inspect("unheard")).as("connected, and the lock held").isPresent();
            Duration wait = Duration.ofMillis(200);
            long start = System.nanoTime();
            assertThat(waiter.tryAcquire("unheard", wait)).isEmpty();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("tryAcquire(%s) with an unconfirmed subscription", wait)
                    .isLessThan(wait.plus(Duration.ofMillis(1_500)));

            CompletableFuture<LockHandle> later = waiter.acquireAsync("unheard", LockOptions.defaults()
                    .withWait(Duration.ofSeconds(20))).toCompletableFuture();
            held.release();
            try (LockHandle next = later.get(30, TimeUnit.SECONDS)) {
                assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            }
        }
    }

    @Test
    void theTlsSettingsOfTheJedisConfigAreUsedForLocksAndHandOffs() throws Exception {
        Path dir = Files.createDirectories(SharedRedis.buildDir().resolve("tls-" + UUID.randomUUID().toString().substring(0, 8)));
        Path cert = dir.resolve("cert.pem");
        Path key = dir.resolve("key.pem");
        Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                "-keyout", key.toString(), "-out", cert.toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("openssl.log").toFile()).start();
        assertThat(openssl.waitFor(60, TimeUnit.SECONDS) && openssl.exitValue() == 0).as("openssl made a certificate").isTrue();

        JedisClientConfig tls = DefaultJedisClientConfig.builder().ssl(true).sslSocketFactory(trusting(cert))
                .password(PASSWORD).connectionTimeoutMillis(2_000).socketTimeoutMillis(2_000).build();
        try (RedisServer server = RedisServer.start(tls, "--tls-port", "{port}", "--tls-cert-file", cert.toString(),
                "--tls-key-file", key.toString(), "--tls-ca-cert-file", cert.toString(), "--tls-auth-clients", "no",
                "--requirepass", PASSWORD)) {
            locksAndHandOffsWork(server, tls, tls, "txlock:");

            JedisClientConfig plain = DefaultJedisClientConfig.builder().password(PASSWORD)
                    .connectionTimeoutMillis(1_000).socketTimeoutMillis(1_000).build();
            try (LockManager locks = LockManager.builder(RedisLockProvider.builder(server.address(), plain).build())
                    .transactions(TransactionSupport.none()).build()) {
                assertThatThrownBy(() -> locks.tryAcquire("plain")).isInstanceOf(LockBackendException.class);
            }
        }
    }

    /**
     * A lock, and a waiter of another provider queued for it and handed it on its list, all over {@code config};
     * the test looks at the server over {@code admin}.
     */
    private static void locksAndHandOffsWork(RedisServer server, JedisClientConfig config, JedisClientConfig admin, String prefix)
            throws Exception {
        RedisLockProvider waiting = RedisLockProvider.builder(server.address(), config).keyPrefix(prefix)
                .recheck(Duration.ofMinutes(1)).build();
        try (LockManager holder = LockManager.builder(RedisLockProvider.builder(server.address(), config).keyPrefix(prefix).build())
                        .transactions(TransactionSupport.none()).build();
                LockManager waiter = LockManager.builder(waiting).transactions(TransactionSupport.none()).build();
                Jedis jedis = new Jedis(server.address(), admin)) {
            LockHandle handle = holder.acquire("secured");
            assertThat(holder.inspect("secured").orElseThrow().fencingToken()).isEqualTo(handle.fencingToken());
            CompletableFuture<LockHandle> next = waiter.acquireAsync("secured", LockOptions.defaults()
                    .withWait(Duration.ofSeconds(30))).toCompletableFuture();
            await("the waiter queued").atMost(Duration.ofSeconds(20)).until(() -> jedis.exists(prefix + "queue:secured"));
            handle.release();
            try (LockHandle got = next.get(30, TimeUnit.SECONDS)) {
                assertThat(got.fencingToken()).isGreaterThan(handle.fencingToken());
                assertThat(waiting.handOffsTaken()).as("handed over on the waiter's list, over the same settings").isEqualTo(1);
            }
            assertThat(holder.inspect("secured")).isEmpty();
        }
    }

    private static SSLSocketFactory trusting(Path certificate) throws Exception {
        KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(certificate)) {
            trust.setCertificateEntry("redis", CertificateFactory.getInstance("X.509").generateCertificate(in));
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(trust);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, factory.getTrustManagers(), null);
        return context.getSocketFactory();
    }
}

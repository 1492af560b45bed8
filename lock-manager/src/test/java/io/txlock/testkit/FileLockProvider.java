package io.txlock.testkit;

import io.txlock.LockInfo;
import io.txlock.LockNotHeldException;
import io.txlock.spi.Attempt;
import io.txlock.spi.Grant;
import io.txlock.spi.LockProvider;
import io.txlock.spi.LockRequest;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * The smallest provider that passes the contract kit, used to test the kit and the core without a server: one
 * properties file per lock name in a directory, every step done under an exclusive lock of a mutex file, so
 * JVMs on one host exclude each other. Leases expire by the host's wall clock. Not for production.
 */
public final class FileLockProvider implements LockProvider {

    /** File locks belong to the whole JVM: threads and providers of one JVM take turns here first. */
    private static final ReentrantLock JVM_MUTEX = new ReentrantLock();

    private final Path dir;

    /** @param dir where the lock files live; created on first use */
    public FileLockProvider(Path dir) {
        this.dir = dir;
    }

    /** Builds a {@link FileLockProvider} in a child JVM; the configuration is the directory. */
    public static final class Factory implements ProviderFactory {
        @Override
        public LockProvider create(String config) {
            return new FileLockProvider(Path.of(config));
        }
    }

    @Override
    public String describe() {
        return "lock files in " + dir;
    }

    @Override
    public Attempt tryAcquire(LockRequest request) {
        return locked(() -> {
            long now = System.currentTimeMillis();
            Entry entry = read(request.name());
            if (entry != null && entry.heldAt(now)) {
                return Attempt.heldFor(Duration.ofMillis(entry.until - now));
            }
            long token = (entry == null ? 0 : entry.token) + 1;
            write(new Entry(request.name(), token, true, request.owner().host(), request.owner().id(), now,
                    now + request.lease().toMillis()));
            return Attempt.granted(new FileGrant(request.name(), token, request.owner().id()));
        });
    }

    @Override
    public void renew(Grant grant, Duration lease) {
        locked(() -> {
            long now = System.currentTimeMillis();
            Entry entry = heldBy(grant, now);
            write(new Entry(entry.name, entry.token, true, entry.host, entry.owner, entry.since, now + lease.toMillis()));
            return null;
        });
    }

    @Override
    public void release(Grant grant) {
        locked(() -> {
            Entry entry = heldBy(grant, System.currentTimeMillis());
            write(new Entry(entry.name, entry.token, false, "", "", 0, 0));
            return null;
        });
    }

    @Override
    public Optional<LockInfo> inspect(String name) {
        return locked(() -> {
            Entry entry = read(name);
            if (entry == null || !entry.heldAt(System.currentTimeMillis())) {
                return Optional.empty();
            }
            return Optional.of(new LockInfo(name, entry.host, entry.owner, entry.token, Instant.ofEpochMilli(entry.since),
                    Instant.ofEpochMilli(entry.until), 1));
        });
    }

    private Entry heldBy(Grant grant, long now) {
        Entry entry = read(grant.name());
        if (entry == null || !entry.heldAt(now) || entry.token != grant.fencingToken()
                || !entry.owner.equals(((FileGrant) grant).owner)) {
            throw new LockNotHeldException("'" + grant.name() + "' token " + grant.fencingToken() + " is no longer held");
        }
        return entry;
    }

    private <T> T locked(Supplier<T> step) {
        JVM_MUTEX.lock();
        try {
            Files.createDirectories(dir);
            try (FileChannel channel = FileChannel.open(dir.resolve(".mutex"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileLock ignored = channel.lock()) {
                return step.get();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("lock files in " + dir + " unusable", e);
        } finally {
            JVM_MUTEX.unlock();
        }
    }

    private Path file(String name) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(name.getBytes(StandardCharsets.UTF_8));
            return dir.resolve(HexFormat.of().formatHex(hash) + ".lock");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private Entry read(String name) {
        Path file = file(name);
        if (!Files.exists(file)) {
            return null;
        }
        Properties p = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return new Entry(p.getProperty("name"), Long.parseLong(p.getProperty("token")), Boolean.parseBoolean(p.getProperty("held")),
                p.getProperty("host"), p.getProperty("owner"), Long.parseLong(p.getProperty("since")),
                Long.parseLong(p.getProperty("until")));
    }

    private void write(Entry entry) {
        Properties p = new Properties();
        p.setProperty("name", entry.name);
        p.setProperty("token", Long.toString(entry.token));
        p.setProperty("held", Boolean.toString(entry.held));
        p.setProperty("host", entry.host);
        p.setProperty("owner", entry.owner);
        p.setProperty("since", Long.toString(entry.since));
        p.setProperty("until", Long.toString(entry.until));
        Path file = file(entry.name);
        Path next = file.resolveSibling(file.getFileName() + ".next");
        try {
            try (Writer out = Files.newBufferedWriter(next, StandardCharsets.UTF_8)) {
                p.store(out, null);
            }
            Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private record Entry(String name, long token, boolean held, String host, String owner, long since, long until) {
        boolean heldAt(long now) {
            return held && until > now;
        }
    }

    /**
     * @param name the lock name
     * @param token its fencing token
     * @param ownerId the owner id it was granted to
     * @return the grant a holder received, as another process can rebuild it from what the holder reported
     */
    public static Grant grant(String name, long token, String ownerId) {
        return new FileGrant(name, token, ownerId);
    }

    private record FileGrant(String name, long fencingToken, String owner) implements Grant {
        @Override
        public boolean leased() {
            return true;
        }
    }
}

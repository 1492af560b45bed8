package io.txlock.testkit;

import io.txlock.spi.Grant;
import io.txlock.spi.LockProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.io.TempDir;

/** The kit against {@link FileLockProvider}: checks the kit itself and the core, with no server. */
class FileLockContractTest extends LockContractTest {

    @TempDir
    static Path dir;

    @Override
    protected LockProvider newProvider() {
        return new FileLockProvider(dir.resolve("locks"));
    }

    @Override
    protected ProviderRecipe recipe() {
        return new ProviderRecipe(FileLockProvider.Factory.class, dir.resolve("locks").toString());
    }

    @Override
    protected Optional<Grant> grantOfADeadHolder(String name, long token, String ownerId) {
        return Optional.of(FileLockProvider.grant(name, token, ownerId));
    }

    @Override
    protected LockProvider newUnreachableProvider() {
        try {
            Path notADirectory = Files.writeString(dir.resolve("not-a-directory"), "");
            return new FileLockProvider(notADirectory.resolve("locks"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

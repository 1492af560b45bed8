package io.txlock.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Runs the spin model check of the lease, renewal and fencing protocol ({@code docs/model/check.sh}): the protocol
 * verifies with 0 errors, and each broken variant is refuted. A missing spin or C compiler fails the test.
 */
class LeaseModelTest {

    @Test
    void theProtocolVerifiesAndEveryBrokenVariantIsRefuted() throws Exception {
        Path script = Path.of("").toAbsolutePath().getParent().resolve("docs/model/check.sh");
        assertTrue(Files.isRegularFile(script), "the model check script is missing: " + script);

        Process check = new ProcessBuilder("bash", script.toString()).redirectErrorStream(true).start();
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        Thread reader = new Thread(() -> copy(check.getInputStream(), output), "model-check-output");
        reader.start();
        boolean finished = check.waitFor(20, TimeUnit.MINUTES);
        if (!finished) {
            check.destroyForcibly().waitFor(1, TimeUnit.MINUTES);
        }
        reader.join(TimeUnit.MINUTES.toMillis(1));
        String text = output.toString(StandardCharsets.UTF_8);
        System.out.println(text);

        assertTrue(finished, "the model check did not finish within 20 minutes:\n" + text);
        assertEquals(0, check.exitValue(), "the model check failed:\n" + text);
        assertTrue(text.contains("model check passed"), text);
    }

    private static void copy(InputStream from, ByteArrayOutputStream to) {
        try (from) {
            from.transferTo(to);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

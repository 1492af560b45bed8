package io.txlock.servers;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.IntFunction;

/**
 * A {@code redis-server} of a test's own on a free loopback port, without persistence: a crash ({@code kill -9})
 * loses everything it held, and it starts again empty on the same port.
 */
public final class PrivateRedis extends PortServer {

    private PrivateRedis(int port, ServerProcess server) {
        super(port, server);
    }

    /**
     * @param dir its directory (log, nothing else)
     * @param extraArgs more {@code redis-server} options
     * @return a started server that answers {@code PING} in plain text
     * @throws IOException if its directory cannot be made
     */
    public static PrivateRedis start(Path dir, String... extraArgs) throws IOException {
        return start(dir, PrivateRedis::answersPing, extraArgs);
    }

    /**
     * @param dir its directory (log, nothing else)
     * @param ready for its port: true once it serves (for a server that wants a password or TLS)
     * @param extraArgs more {@code redis-server} options; {@code {port}} stands for its port. With
     *     {@code --tls-port {port}} the plain port is closed.
     * @return a started server
     * @throws IOException if its directory cannot be made
     */
    public static PrivateRedis start(Path dir, IntFunction<Callable<Boolean>> ready, String... extraArgs) throws IOException {
        Files.createDirectories(dir);
        int port = Os.freePort();
        List<String> command = new ArrayList<>(List.of("redis-server", "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--daemonize", "no", "--dir", dir.toAbsolutePath().toString(),
                "--port", List.of(extraArgs).contains("--tls-port") ? "0" : Integer.toString(port)));
        for (String arg : extraArgs) {
            command.add(arg.equals("{port}") ? Integer.toString(port) : arg);
        }
        ServerProcess server = new ServerProcess("redis-server on port " + port, command, dir.resolve("redis.log"),
                ready.apply(port), "KILL");
        server.start();
        return new PrivateRedis(port, server);
    }

    private static Callable<Boolean> answersPing(int port) {
        return () -> {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                socket.setSoTimeout(1000);
                OutputStream out = socket.getOutputStream();
                out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = socket.getInputStream();
                byte[] reply = new byte[7];
                int read = in.readNBytes(reply, 0, reply.length);
                return new String(reply, 0, read, StandardCharsets.US_ASCII).startsWith("+PONG");
            }
        };
    }
}

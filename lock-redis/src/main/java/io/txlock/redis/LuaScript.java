package io.txlock.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/**
 * A Lua script from this package's resources, run by its SHA-1 and sent in full only when the server lacks it. The
 * scripts that grant a lock or change its queue start with the functions of {@code queue.lua}, so that granting,
 * handing over and dropping expired waiters are written once.
 */
final class LuaScript {

    private static final String QUEUE = "queue.lua";

    static final LuaScript ACQUIRE = load(QUEUE, "acquire.lua");
    static final LuaScript ADOPT = load("adopt.lua");
    static final LuaScript RENEW = load("renew.lua");
    static final LuaScript RELEASE = load(QUEUE, "release.lua");
    static final LuaScript LEAVE = load(QUEUE, "leave.lua");
    static final LuaScript INSPECT = load("inspect.lua");
    static final LuaScript FORCE_RELEASE = load(QUEUE, "force_release.lua");

    private final String name;
    private final String source;
    private final String sha1;

    private LuaScript(String name, String source) {
        this.name = name;
        this.source = source;
        this.sha1 = sha1Hex(source);
    }

    private static LuaScript load(String... resources) {
        StringBuilder source = new StringBuilder();
        for (String resource : resources) {
            try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("missing resource io/txlock/redis/" + resource);
                }
                source.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return new LuaScript(resources[resources.length - 1], source.toString());
    }

    Object run(UnifiedJedis client, List<String> keys, List<String> args) {
        try {
            return client.evalsha(sha1, keys, args);
        } catch (JedisNoScriptException notCached) {
            return client.eval(source, keys, args);
        }
    }

    @Override
    public String toString() {
        return name;
    }

    private static String sha1Hex(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JVM", e);
        }
    }
}

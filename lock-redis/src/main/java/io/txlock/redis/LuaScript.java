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

/** A Lua script from this package's resources, run by its SHA-1 and sent in full only when the server lacks it. */
final class LuaScript {

    static final LuaScript ACQUIRE = load("acquire.lua");
    static final LuaScript ADOPT = load("adopt.lua");
    static final LuaScript RENEW = load("renew.lua");
    static final LuaScript RELEASE = load("release.lua");
    static final LuaScript INSPECT = load("inspect.lua");
    static final LuaScript FORCE_RELEASE = load("force_release.lua");

    private final String name;
    private final String source;
    private final String sha1;

    private LuaScript(String name, String source) {
        this.name = name;
        this.source = source;
        this.sha1 = sha1Hex(source);
    }

    private static LuaScript load(String resource) {
        try (InputStream in = LuaScript.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing resource io/txlock/redis/" + resource);
            }
            return new LuaScript(resource, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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

package io.txlock.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Where a backend is and how to log in. A worker JVM receives the spec of the namespace its parent created
 * ({@link #prepared()} true), so it only connects.
 *
 * @param kind which backend
 * @param url the JDBC URL, the ZooKeeper connect string or the Redis address; null for the kind's default (for
 *     ZooKeeper: an embedded server)
 * @param user the user, or null for the kind's default
 * @param password the password, empty for none
 * @param namespace where a prepared spec's locks live inside the server (a ZooKeeper base path, a Redis key
 *     prefix), or null; JDBC URLs name their namespace themselves
 * @param prepared {@code true} if the spec already points at a namespace with the bench's tables
 */
public record BackendSpec(BackendKind kind, String url, String user, String password, String namespace, boolean prepared) {

    /**
     * @param kind which backend
     * @return the kind's defaults
     */
    public static BackendSpec defaults(BackendKind kind) {
        return new BackendSpec(kind, null, null, "", null, false);
    }

    /**
     * @param address the JDBC URL, connect string or address
     * @return this spec at that address
     */
    public BackendSpec at(String address) {
        return new BackendSpec(kind, address, user, password, namespace, prepared);
    }

    /** @return the URL to use: the given one, or the kind's default */
    public String effectiveUrl() {
        return url != null ? url : kind.defaultUrl();
    }

    /** @return the user to use: the given one, or the kind's default */
    public String effectiveUser() {
        return user != null ? user : kind.defaultUser();
    }

    /** @return {@code key=value} arguments for a worker JVM; {@link #fromArgs(Map)} reads them back */
    public List<String> toArgs() {
        List<String> args = new ArrayList<>();
        args.add("backend=" + kind.cliName());
        if (url != null) {
            args.add("url=" + url);
        }
        if (user != null) {
            args.add("user=" + user);
        }
        args.add("password=" + password);
        if (namespace != null) {
            args.add("namespace=" + namespace);
        }
        args.add("prepared=" + prepared);
        return args;
    }

    /**
     * @param args arguments written by {@link #toArgs()}
     * @return the spec
     */
    public static BackendSpec fromArgs(Map<String, String> args) {
        return new BackendSpec(BackendKind.parse(args.get("backend")), args.get("url"), args.get("user"),
                args.getOrDefault("password", ""), args.get("namespace"), Boolean.parseBoolean(args.get("prepared")));
    }

    /** @return the spec without its password, for reports */
    @Override
    public String toString() {
        return kind.cliName() + (url != null ? " " + url : "") + (user != null ? " as " + user : "");
    }
}

package io.txlock.bench;

import java.util.LinkedHashMap;
import java.util.Map;

/** {@code key=value} arguments, as the bench passes them to worker JVMs. */
final class Args {

    private Args() {
    }

    /**
     * @param args {@code key=value} strings; the value may contain '='
     * @return the map, in order
     * @throws IllegalArgumentException for an argument without '='
     */
    static Map<String, String> parse(String[] args) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("expected key=value, got '" + a + "'");
            }
            map.put(a.substring(0, eq), a.substring(eq + 1));
        }
        return map;
    }
}

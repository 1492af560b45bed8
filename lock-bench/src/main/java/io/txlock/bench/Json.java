package io.txlock.bench;

import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;

/**
 * A small JSON writer for the report: records become objects, with their components as fields (and those a
 * {@link Derived} record adds). A double that is not a number is written as the string "NaN", "Infinity" or
 * "-Infinity", never as null.
 */
final class Json {

    /** A record that adds fields derived from its components, e.g. a verdict. */
    interface Derived {
        /** @return the fields to write after the components, in order */
        Map<String, Object> derived();
    }

    private Json() {
    }

    /**
     * @param value a record, map, collection, string, number, boolean, enum, path, duration, instant or null
     * @return it as indented JSON
     */
    static String write(Object value) {
        StringBuilder b = new StringBuilder();
        write(b, value, 0);
        return b.append('\n').toString();
    }

    private static void write(StringBuilder b, Object value, int depth) {
        if (value == null) {
            b.append("null");
        } else if (value instanceof String s) {
            string(b, s);
        } else if (value instanceof Double d) {
            if (d.isNaN() || d.isInfinite()) {
                string(b, d.toString());
            } else {
                b.append(Math.round(d * 1000) / 1000.0);
            }
        } else if (value instanceof Number || value instanceof Boolean) {
            b.append(value);
        } else if (value instanceof Enum<?> || value instanceof Path || value instanceof Instant) {
            string(b, value.toString());
        } else if (value instanceof Duration d) {
            b.append(d.toMillis());
        } else if (value instanceof Map<?, ?> map) {
            object(b, depth, map.entrySet().stream().map(e -> Map.entry(String.valueOf(e.getKey()), (Object) e.getValue())).toList());
        } else if (value instanceof Collection<?> list) {
            b.append('[');
            int i = 0;
            for (Object o : list) {
                b.append(i++ == 0 ? "" : ",").append('\n').append("  ".repeat(depth + 1));
                write(b, o, depth + 1);
            }
            b.append(list.isEmpty() ? "" : "\n" + "  ".repeat(depth)).append(']');
        } else if (value.getClass().isRecord()) {
            java.util.List<Map.Entry<String, Object>> fields = new java.util.ArrayList<>();
            for (RecordComponent c : value.getClass().getRecordComponents()) {
                try {
                    fields.add(new java.util.AbstractMap.SimpleEntry<>(c.getName(), c.getAccessor().invoke(value)));
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            }
            if (value instanceof Derived d) {
                d.derived().forEach((k, v) -> fields.add(new java.util.AbstractMap.SimpleEntry<>(k, v)));
            }
            object(b, depth, fields);
        } else {
            string(b, value.toString());
        }
    }

    private static void object(StringBuilder b, int depth, java.util.List<Map.Entry<String, Object>> fields) {
        b.append('{');
        int i = 0;
        for (Map.Entry<String, Object> f : fields) {
            b.append(i++ == 0 ? "" : ",").append('\n').append("  ".repeat(depth + 1));
            string(b, f.getKey());
            b.append(": ");
            write(b, f.getValue(), depth + 1);
        }
        b.append(fields.isEmpty() ? "" : "\n" + "  ".repeat(depth)).append('}');
    }

    private static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        b.append('"');
    }
}

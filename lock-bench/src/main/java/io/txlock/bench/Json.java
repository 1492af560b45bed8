package io.txlock.bench;

import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.Map;

/** A small JSON writer for the report: records become objects, with their components as fields. */
final class Json {

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
            b.append(d.isNaN() || d.isInfinite() ? "null" : Double.toString(Math.round(d * 1000) / 1000.0));
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

package io.txlock.bench;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import com.fasterxml.jackson.databind.ser.std.ToStringSerializer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * The report's JSON, written by Jackson: records become objects, with their components as fields (and those a
 * {@link Derived} record adds). Durations are milliseconds, paths and instants strings, doubles rounded to three
 * decimals; a double that is not a number is the string "NaN", "Infinity" or "-Infinity", never null.
 */
final class Json {

    /** A record that adds fields derived from its components, e.g. a verdict. */
    interface Derived {
        /** @return the fields to write after the components, in order */
        @JsonAnyGetter
        Map<String, Object> derived();
    }

    private static final ObjectMapper MAPPER = JsonMapper.builder()
            .addModule(new SimpleModule("lock-bench")
                    .addSerializer(Double.class, new RoundedDouble())
                    .addSerializer(double.class, new RoundedDouble())
                    .addSerializer(Duration.class, new Millis())
                    .addSerializer(Path.class, ToStringSerializer.instance)
                    .addSerializer(Instant.class, ToStringSerializer.instance))
            .defaultPrettyPrinter(new DefaultPrettyPrinter(Separators.createDefaultInstance()
                    .withObjectFieldValueSpacing(Separators.Spacing.AFTER))
                    .withArrayIndenter(DefaultIndenter.SYSTEM_LINEFEED_INSTANCE))
            .build();

    private Json() {
    }

    /**
     * @param value a record, map, collection, string, number, boolean, enum, path, duration, instant or null
     * @return it as indented JSON
     */
    static String write(Object value) {
        try {
            return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsString(value) + "\n";
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final class RoundedDouble extends StdSerializer<Double> {
        RoundedDouble() {
            super(Double.class);
        }

        @Override
        public void serialize(Double d, JsonGenerator out, SerializerProvider provider) throws IOException {
            if (d.isNaN() || d.isInfinite()) {
                out.writeString(d.toString());
            } else {
                out.writeNumber(Math.round(d * 1000) / 1000.0);
            }
        }
    }

    private static final class Millis extends StdSerializer<Duration> {
        Millis() {
            super(Duration.class);
        }

        @Override
        public void serialize(Duration d, JsonGenerator out, SerializerProvider provider) throws IOException {
            out.writeNumber(d.toMillis());
        }
    }
}

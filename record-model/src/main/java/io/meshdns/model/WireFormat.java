package io.meshdns.model;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.jsontype.NamedType;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * JSON encoding of snapshots, deltas and watch events. One mapper, configured once, so every
 * service reads and writes the same bytes. Unknown fields are ignored so that a newer discovery
 * can talk to an older dns-service.
 */
public final class WireFormat {
    private static final ObjectMapper MAPPER = withEntryTypes(new ObjectMapper()
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false)
            .configure(SerializationFeature.FAIL_ON_EMPTY_BEANS, false));

    private WireFormat() {
    }

    /**
     * {@link CatalogEntry}'s subtypes, from {@link Kind} (no reflection over the sealed interface, which a native
     * image would have to be told about): each kind's record, named on the wire by its simple name.
     */
    private static ObjectMapper withEntryTypes(ObjectMapper mapper) {
        for (Kind kind : Kind.values()) {
            mapper.registerSubtypes(new NamedType(kind.entryType(), kind.entryType().getSimpleName()));
        }
        return mapper;
    }

    public static ObjectMapper mapper() {
        return MAPPER;
    }

    public static byte[] encode(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static <T> T decode(byte[] json, Class<T> type) {
        try {
            return MAPPER.readValue(json, type);
        } catch (IOException e) {
            throw new UncheckedIOException("malformed " + type.getSimpleName() + " JSON: " + e.getMessage(), e);
        }
    }

    public static <T> T decode(String json, Class<T> type) {
        try {
            return MAPPER.readValue(json, type);
        } catch (IOException e) {
            throw new UncheckedIOException("malformed " + type.getSimpleName() + " JSON: " + e.getMessage(), e);
        }
    }
}

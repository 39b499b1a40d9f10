package io.orderflow.runner.flows;

import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Reads flow files (the JSON of {@link FlowDefinition}) from disk or from the classpath. */
public final class FlowFiles {

    /** The five built-in flows, seeded at start; each flow id equals its order type. */
    public static final List<String> SEEDED = List.of(
            "purchase_request", "b2b_order", "reorder", "subscription", "storefront_order");

    private FlowFiles() {
    }

    public static FlowDefinition read(Path file) {
        try {
            return Json.MAPPER.readValue(Files.readString(file), FlowDefinition.class);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read flow file " + file, e);
        }
    }

    /** A built-in flow from {@code flows/<id>.json} on the classpath. */
    public static FlowDefinition builtIn(String id) {
        String resource = "flows/" + id + ".json";
        try (InputStream in = FlowFiles.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("Missing built-in flow " + resource);
            }
            return Json.MAPPER.readValue(in, FlowDefinition.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static List<FlowDefinition> seeded() {
        return SEEDED.stream().map(FlowFiles::builtIn).toList();
    }
}

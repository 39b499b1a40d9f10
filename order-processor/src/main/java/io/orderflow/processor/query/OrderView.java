package io.orderflow.processor.query;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.orderflow.processor.order.NodeState;
import io.orderflow.processor.order.OrderState;
import io.orderflow.processor.order.Wait;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.TimelineEntry;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.SerializableString;
import tools.jackson.core.io.SerializedString;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.module.SimpleModule;

/**
 * The order's live state as the API shows it: the stored state without its private fields and timeline keys, with
 * the pinned flow's whole graph in place of the stored reference.
 *
 * <p>Written in one pass from the state to UTF-8 JSON, with the flow's JSON copied in as it is ({@link #flowJson},
 * which {@link OrderQueryRouter} caches per published version). Building a tree of the state and of the flow first,
 * then editing and writing it, took about a seventh of a read's event-loop samples; the one pass saved about 5% of a
 * read's CPU (measured 2026-11-24; see docs/performance.md).
 */
public final class OrderView {

    private static final JsonInclude.Value SHOWN_EMPTY =
            JsonInclude.Value.construct(JsonInclude.Include.ALWAYS, JsonInclude.Include.ALWAYS);

    /** The state's {@code reason}, which the contract lists, shown as null until the order has one. */
    private interface ReasonShownEmpty {
        @JsonInclude(JsonInclude.Include.ALWAYS)
        String reason();
    }

    /** The context attribute that carries the flow's JSON to {@link FlowAsGiven}. */
    private static final Object FLOW = new Object();

    private static final ObjectWriter WRITER = Json.MAPPER.rebuild()
            .withConfigOverride(OrderState.class, o -> o.setIgnorals(JsonIgnoreProperties.Value.forIgnoredProperties(
                    OrderState.PRIVATE_FIELDS.toArray(String[]::new))))
            .withConfigOverride(TimelineEntry.class, o -> o.setIgnorals(
                    JsonIgnoreProperties.Value.forIgnoredProperties("key")))
            // the fields the contract lists for a node and an open wait are shown when empty, as null
            .withConfigOverride(NodeState.class, o -> o.setInclude(SHOWN_EMPTY))
            .withConfigOverride(Wait.class, o -> o.setInclude(SHOWN_EMPTY))
            .addMixIn(OrderState.class, ReasonShownEmpty.class)
            .addModule(new SimpleModule("order-view").addSerializer(FlowVersion.class, new FlowAsGiven()))
            .build()
            .writer();

    private OrderView() {
    }

    /** The JSON of {@code flow}, ready to be copied into views. */
    public static SerializableString flowJson(FlowVersion flow) {
        return new SerializedString(Json.write(flow));
    }

    /** The view with the flow as stored (the whole graph, for states stored before it was kept as a reference). */
    public static byte[] write(OrderState state) {
        return write(state, flowJson(state.flow()));
    }

    /**
     * The view with {@code flow}, the JSON of the pinned version with its whole graph ({@link #flowJson}), as UTF-8
     * bytes: the response body as it goes out, with the flow's bytes (encoded once per version) copied in.
     */
    public static byte[] write(OrderState state, SerializableString flow) {
        return WRITER.withAttribute(FLOW, flow).writeValueAsBytes(state);
    }

    /** Writes the flow's JSON given to the call in place of the state's flow. */
    private static final class FlowAsGiven extends ValueSerializer<FlowVersion> {
        @Override
        public void serialize(FlowVersion stored, JsonGenerator out, SerializationContext context) {
            out.writeRawValue((SerializableString) context.getAttribute(FLOW));
        }
    }
}

package io.orderflow.processor.query;

import io.orderflow.processor.order.NodeRun;
import io.orderflow.processor.order.NodeState;
import io.orderflow.processor.order.OrderState;
import io.orderflow.processor.order.Wait;
import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.TimelineEntry;
import io.orderflow.schemas.query.OrderView;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.SerializableString;
import tools.jackson.core.io.SerializedString;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.module.SimpleModule;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The stored state of an order as the API shows it: {@link #of} maps it to the public {@link OrderView}, which has no
 * component for the state's private fields nor for a timeline entry's key; {@link #write} writes a view as the
 * response body.
 *
 * <p>A view is written in one pass to UTF-8 JSON, with the flow's JSON copied in as it is ({@link #flowJson}, which
 * {@link OrderQueryRouter} caches per published version). Building a tree of the state and of the flow first, then
 * editing and writing it, took about a seventh of a read's event-loop samples; the one pass saved about 5% of a read's
 * CPU (measured 2026-11-24; see docs/performance.md).
 */
public final class OrderViews {

    /** The context attribute that carries the flow's JSON to {@link FlowAsGiven}. */
    private static final Object FLOW = new Object();

    private static final ObjectWriter WRITER = Json.MAPPER.rebuild()
            .addModule(new SimpleModule("order-view").addSerializer(FlowVersion.class, new FlowAsGiven()))
            .build()
            .writer();

    private OrderViews() {
    }

    /** The view of {@code state}, showing {@code flow}: the pinned version with its whole graph. */
    public static OrderView of(OrderState state, FlowVersion flow) {
        Map<String, OrderView.Node> nodes = new LinkedHashMap<>(capacity(state.nodes().size()));
        state.nodes().forEach((id, node) -> nodes.put(id, node(node)));
        List<OrderView.Wait> waits = new ArrayList<>(state.waits().size());
        state.waits().forEach(wait -> waits.add(wait(wait)));
        List<OrderView.TimelineItem> timeline = new ArrayList<>(state.timeline().size());
        state.timeline().forEach(entry -> timeline.add(item(entry)));
        return new OrderView(state.orderId(), state.status(), state.reason(), state.order(), flow,
                Collections.unmodifiableMap(nodes), state.edges(), Collections.unmodifiableList(waits), state.vars(),
                Collections.unmodifiableList(timeline), state.chat(), state.instanceId(), state.generation(),
                state.rollback(), state.version());
    }

    private static OrderView.Node node(NodeState node) {
        List<OrderView.Run> runs = new ArrayList<>(node.runs().size());
        for (NodeRun run : node.runs()) {
            runs.add(new OrderView.Run(run.startedAt(), run.endedAt(), run.durationMs()));
        }
        return new OrderView.Node(node.status(), Collections.unmodifiableList(runs), node.summary(), node.output(),
                node.error(), node.branches(), node.startedAt(), node.endedAt());
    }

    private static OrderView.Wait wait(Wait wait) {
        return new OrderView.Wait(wait.nodeId(), wait.kind(), wait.title(), wait.event(), wait.assignee(),
                wait.amount(), wait.deadline(), wait.since());
    }

    private static OrderView.TimelineItem item(TimelineEntry entry) {
        return new OrderView.TimelineItem(entry.at(), entry.kind(), entry.message(), entry.nodeId(), entry.data());
    }

    private static int capacity(int entries) {
        return (int) Math.ceil(entries / 0.75);
    }

    /** The JSON of {@code flow}, ready to be copied into views. */
    public static SerializableString flowJson(FlowVersion flow) {
        return new SerializedString(Json.write(flow));
    }

    /** The view as UTF-8 JSON, with its flow encoded for this one call. */
    public static byte[] write(OrderView view) {
        return write(view, flowJson(view.flow()));
    }

    /**
     * The view as UTF-8 bytes, the response body as it goes out, with {@code flowJson}, the JSON of the view's flow
     * ({@link #flowJson}, encoded once per version), copied in.
     */
    public static byte[] write(OrderView view, SerializableString flowJson) {
        return WRITER.withAttribute(FLOW, flowJson).writeValueAsBytes(view);
    }

    /** Writes the flow's JSON given to the call in place of the view's flow. */
    private static final class FlowAsGiven extends ValueSerializer<FlowVersion> {
        @Override
        public void serialize(FlowVersion flow, JsonGenerator out, SerializationContext context) {
            out.writeRawValue((SerializableString) context.getAttribute(FLOW));
        }
    }
}

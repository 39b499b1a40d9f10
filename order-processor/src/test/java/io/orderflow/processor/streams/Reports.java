package io.orderflow.processor.streams;

import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.EdgeState;
import io.orderflow.schemas.model.NodePatch;
import io.orderflow.schemas.model.NodeStatus;
import io.orderflow.schemas.model.OrderStatus;
import io.orderflow.schemas.model.TimelineEntry;
import io.orderflow.schemas.model.WaitRequest;
import io.orderflow.schemas.reports.RunReport;
import tools.jackson.databind.JsonNode;

import java.math.BigDecimal;
import java.util.Map;

/** Run reports as the flow-runner sends them, for the scenario tests. */
final class Reports {

    static final String ORDER = Fixtures.ORDER;
    static final String INSTANCE = ORDER + ".1";

    private Reports() {
    }

    static RunReport.Progress progress(int generation, long seq, OrderStatus status) {
        return progress(generation, seq, status, Map.of(), Map.of(), null);
    }

    static RunReport.Progress progress(int generation, long seq, OrderStatus status, Map<String, NodeStatus> nodes,
                                       Map<String, EdgeState> edges, JsonNode vars) {
        return progress(generation, seq, status, nodes, edges, vars, order("25.00", "2.00", "27.00"));
    }

    static RunReport.Progress progress(int generation, long seq, OrderStatus status, Map<String, NodeStatus> nodes,
                                       Map<String, EdgeState> edges, JsonNode vars, JsonNode order) {
        return progress(generation, seq, status, nodes, edges, vars, order, 0);
    }

    /** @param at when the run reached the status; 0 for a report written before reports carried it */
    static RunReport.Progress progress(int generation, long seq, OrderStatus status, Map<String, NodeStatus> nodes,
                                       Map<String, EdgeState> edges, JsonNode vars, JsonNode order, long at) {
        String instance = generation == 1 ? INSTANCE : ORDER + "." + generation;
        return new RunReport.Progress(ORDER, instance, generation, seq, status,
                status == OrderStatus.FAILED ? "Payment connector failed" : null, nodes, edges, order, vars, at);
    }

    /** A status report as the runner sends it: the status reached at {@code at}, no plan. */
    static RunReport.Progress status(long seq, OrderStatus status, long at) {
        return progress(1, seq, status, Map.of(), Map.of(), null, order("25.00", "2.00", "27.00"), at);
    }

    /** The order object with its computed amounts, as the run reports it. */
    static JsonNode order(String subtotal, String tax, String total) {
        return Json.MAPPER.readTree("""
                {"id":"%s","type":"storefront_order","title":"Storefront order · cus_42","customerId":"cus_42",
                 "currency":"USD","subtotal":%s,"tax":%s,"total":%s,"fxRate":1,"baseTotal":%s}"""
                .formatted(ORDER, subtotal, tax, total, total));
    }

    static RunReport.NodeDetail detail(String nodeId, NodePatch patch) {
        return new RunReport.NodeDetail(ORDER, INSTANCE, nodeId, patch, null);
    }

    static RunReport.NodeDetail log(String nodeId, long at, String message, String key) {
        return new RunReport.NodeDetail(ORDER, INSTANCE, nodeId, null,
                new TimelineEntry(at, "node", message, nodeId, null, key));
    }

    static NodePatch started(long at) {
        return new NodePatch(NodeStatus.RUNNING, at, null, null, null, null, null);
    }

    static NodePatch ended(long at) {
        return new NodePatch(NodeStatus.SUCCEEDED, null, at, "done", Json.object().put("ok", true), null, null);
    }

    static RunReport.WaitRequested approvalWait(long timeoutMs, long since) {
        return approvalWait(ORDER, timeoutMs, since);
    }

    static RunReport.WaitRequested approvalWait(String orderId, long timeoutMs, long since) {
        return new RunReport.WaitRequested(orderId, orderId + ".1", 1, new WaitRequest("approve", "approval",
                "Approve order " + orderId, "approval", "manager", new BigDecimal("27.00"), timeoutMs, since));
    }

    static RunReport.WaitRequested eventWait(String event, long timeoutMs, long since) {
        return new RunReport.WaitRequested(ORDER, INSTANCE, 1, new WaitRequest("pay", "event",
                "Wait for " + event, event, null, null, timeoutMs, since));
    }
}

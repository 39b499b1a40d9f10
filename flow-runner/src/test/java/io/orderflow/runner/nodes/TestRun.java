package io.orderflow.runner.nodes;

import io.orderflow.schemas.json.Json;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/** A run a node executes in, alone, without the runner: plain fields the test sets and reads. */
final class TestRun implements RunState {

    String orderId = NodeScenario.ORDER;
    int generation = 1;
    ObjectNode order = Json.object().put("id", NodeScenario.ORDER);
    ObjectNode vars = Json.object();
    ObjectNode outputs = Json.object();
    final List<String> completed = new ArrayList<>();
    List<Hold> holds = new ArrayList<>();

    @Override
    public String orderId() {
        return orderId;
    }

    @Override
    public int generation() {
        return generation;
    }

    @Override
    public ObjectNode order() {
        return order;
    }

    @Override
    public ObjectNode vars() {
        return vars;
    }

    @Override
    public ObjectNode outputs() {
        return outputs;
    }

    @Override
    public String documentText() {
        return null;
    }

    @Override
    public int runsOf(String nodeId) {
        return 1;
    }

    @Override
    public List<String> completed() {
        return completed;
    }

    @Override
    public List<Hold> holds() {
        return holds;
    }

    @Override
    public void holds(List<Hold> holds) {
        this.holds = holds;
    }
}

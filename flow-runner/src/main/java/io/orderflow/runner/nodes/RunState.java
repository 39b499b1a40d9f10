package io.orderflow.runner.nodes;

import java.util.List;
import tools.jackson.databind.node.ObjectNode;

/**
 * What a node may read and change of the run it executes in, through its {@link NodeContext}: the order object and
 * the run's variables (which nodes extend), the outputs of the nodes so far, and what connectors hold for the order.
 * The run's bookkeeping (its state, plan, steps, timers) is not a node's to see.
 */
public interface RunState {

    String orderId();

    int generation();

    /** The order object, mutable: nodes add {@code lines}, {@code subtotal}, {@code tax}, {@code total}, ... */
    ObjectNode order();

    ObjectNode vars();

    /** Node outputs by node id ({@code nodes.<id>} in templates and expressions). */
    ObjectNode outputs();

    /** The text the order's {@code documentRef} names, when the run has looked it up; else null. */
    String documentText();

    /** How many times {@code nodeId} has been entered in this run (a node on a loop runs once per pass). */
    int runsOf(String nodeId);

    /** Completed node ids in completion order. */
    List<String> completed();

    /** What connectors hold for the order. */
    List<Hold> holds();

    void holds(List<Hold> holds);
}

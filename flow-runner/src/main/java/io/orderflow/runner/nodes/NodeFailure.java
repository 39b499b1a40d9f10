package io.orderflow.runner.nodes;

/** A node error that no retry can fix (bad data): the run fails at once, whatever the retry policy. */
public class NodeFailure extends RuntimeException {

    public NodeFailure(String message) {
        super(message);
    }
}

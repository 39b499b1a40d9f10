package io.orderflow.runner.connectors;

/** A connector call that failed in a way worth retrying (e.g. the carrier is down). */
public class ConnectorException extends RuntimeException {

    public ConnectorException(String message) {
        super(message);
    }
}

package io.orderflow.schemas.model;

import com.fasterxml.jackson.annotation.JsonValue;

/** Order statuses; see {@link #terminal()}. */
public enum OrderStatus {
    QUEUED("queued"),
    RUNNING("running"),
    WAITING("waiting"),
    COMPLETED("completed"),
    DECLINED("declined"),
    CANCELLED("cancelled"),
    FAILED("failed"),
    ROLLED_BACK("rolled_back");

    /** Every constant, read on each list row: {@code values()} would copy the array each time. */
    private static final OrderStatus[] ALL = values();

    private final String wire;

    OrderStatus(String wire) {
        this.wire = wire;
    }

    /** The spelling used on the wire and in the API. */
    @JsonValue
    public String wire() {
        return wire;
    }

    /** The constant spelled {@code wire}, or {@code null} when there is none. */
    public static OrderStatus fromWire(String wire) {
        for (OrderStatus value : ALL) {
            if (value.wire.equals(wire)) {
                return value;
            }
        }
        return null;
    }

    /** Terminal statuses: a late report never reopens such an order. */
    public boolean terminal() {
        return switch (this) {
            case QUEUED, RUNNING, WAITING -> false;
            case COMPLETED, DECLINED, CANCELLED, FAILED, ROLLED_BACK -> true;
        };
    }
}

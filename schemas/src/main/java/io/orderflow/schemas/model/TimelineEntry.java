package io.orderflow.schemas.model;

import tools.jackson.databind.JsonNode;

/**
 * One timeline entry. An entry with a {@code key} replaces the earlier entry with the same key.
 *
 * @param at epoch milliseconds
 */
public record TimelineEntry(long at, String kind, String message, String nodeId, JsonNode data, String key) {

    public static TimelineEntry of(long at, String kind, String message) {
        return new TimelineEntry(at, kind, message, null, null, null);
    }
}

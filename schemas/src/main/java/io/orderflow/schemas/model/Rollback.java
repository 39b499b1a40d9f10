package io.orderflow.schemas.model;

/**
 * How a rollback settled.
 *
 * @param outcome {@code complete} or {@code failed}
 */
public record Rollback(String outcome, String error) {
}

package io.orderflow.schemas.batches;

/**
 * Which orders a batch matches: the order list's filters ({@code GET /api/v1/orders}), each optional.
 *
 * @param since created at or after (epoch milliseconds)
 * @param until created at or before (epoch milliseconds); a batch never matches orders created after it was
 */
public record BatchFilter(String type, String status, String q, Long since, Long until) {
}

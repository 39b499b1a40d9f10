package io.orderflow.schemas.requests;

/**
 * One problem with a request body: where ({@code /input/lines/0/qty}, a JSON Pointer; empty for the root) and what.
 */
public record RequestIssue(String path, String message) {
}

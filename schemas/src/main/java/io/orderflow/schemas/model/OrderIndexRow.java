package io.orderflow.schemas.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.math.BigDecimal;

/**
 * A row of the order index (the list result).
 *
 * @param waitingOn titles of open waits joined with {@code " · "}
 * @param createdAt epoch milliseconds
 * @param updatedAt epoch milliseconds
 * @param search    lower-case text the list's {@code q} also matches (SKUs, line names, the customer's name); kept in
 *                  the index store, left out of the list answer
 */
@JsonInclude(JsonInclude.Include.ALWAYS)
public record OrderIndexRow(String id, OrderType type, OrderStatus status, String title, String flowId,
                            int flowVersion, String instanceId, int generation, String customerId, String currency,
                            BigDecimal total, String waitingOn, long createdAt, long updatedAt,
                            @JsonInclude(JsonInclude.Include.NON_NULL) String search) {

    /** The field of {@link #search()}. */
    public static final String SEARCH = "search";
}

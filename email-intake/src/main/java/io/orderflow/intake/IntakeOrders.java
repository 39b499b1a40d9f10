package io.orderflow.intake;

import io.orderflow.schemas.flows.FlowVersion;
import io.orderflow.schemas.query.OrderView;
import java.time.Duration;
import reactor.core.publisher.Mono;
import tools.jackson.databind.node.ObjectNode;

/**
 * What the mail intake asks of the service it runs in: the flow a mailbox starts orders on, the start itself (the
 * ordinary start command, as {@code POST /api/v1/orders} with an {@code Idempotency-Key} would send it), and an order's
 * live state for the acknowledgement. The gateway answers it with its own command path and query client, so a mail
 * and a REST request start an order the same way.
 */
public interface IntakeOrders {

    /** How long the intake waits for any answer below (on the SMTP session's thread); later is a temporary refusal. */
    Duration answerWithin();

    /** The version of {@code flowId} that new orders start on. */
    Mono<FlowVersion> flow(String flowId);

    /**
     * Starts an order on {@code flow} from {@code body} ({@code {flowId, input}}, what a REST client would have sent),
     * keyed by {@code idempotencyKey}, for {@code sender}, who wrote to {@code mailbox}.
     */
    Mono<Started> start(FlowVersion flow, ObjectNode body, String idempotencyKey, String sender, String mailbox);

    /** The order's live state. */
    Mono<OrderView> view(String orderId);

    /** What a start came to. */
    sealed interface Started {

        /** A new order. */
        record Created(String orderId) implements Started {
        }

        /** The same start again: its order existed already. */
        record Replayed(String orderId) implements Started {
        }

        /** The key was used by a different start: nothing was started. */
        record KeyTaken() implements Started {
        }

        /** {@code body} is not a valid start; {@code issues} says where. */
        record Invalid(String issues) implements Started {
        }

        /** The service refused it with {@code status} (an HTTP status) and {@code error}. */
        record NotStarted(int status, String error) implements Started {
        }
    }
}

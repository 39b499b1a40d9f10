package io.orderflow.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.orderflow.client.ApiClient;
import io.orderflow.client.ApiException;
import io.orderflow.client.api.BatchesControllerApi;
import io.orderflow.client.api.ClockControllerApi;
import io.orderflow.client.api.FlowsControllerApi;
import io.orderflow.client.api.OrdersControllerApi;
import io.orderflow.client.api.WebhookSubscriptionsControllerApi;
import io.orderflow.client.model.Batch;
import io.orderflow.client.model.CancelOrderRequest;
import io.orderflow.client.model.CreateBatchRequest;
import io.orderflow.client.model.CreateWebhookSubscriptionRequest;
import io.orderflow.client.model.CreateWebhookSubscriptionRequest.EventsEnum;
import io.orderflow.client.model.DecideApprovalRequest;
import io.orderflow.client.model.OrderState;
import io.orderflow.client.model.OrderStateWaitsInner;
import io.orderflow.client.model.OrderStatus;
import io.orderflow.client.model.SetClockRequest;
import io.orderflow.client.model.StartOrderRequest;
import io.orderflow.client.model.StartOrderRequestInput;
import io.orderflow.client.model.StartOrderRequestInputLinesInner;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.standalone.StandaloneSettings;
import io.orderflow.standalone.StandaloneSystem;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A client generated from the published OpenAPI document (java/native) drives the whole system: start, read, decide,
 * cancel, and a refused request, on the standalone system and its in-process broker.
 */
class GeneratedJavaClientEndToEndTest {

    private static StandaloneSystem system;
    private static OrdersControllerApi orders;
    private static WebhookSubscriptionsControllerApi subscriptions;
    private static ClockControllerApi clock;
    private static BatchesControllerApi batches;

    @BeforeAll
    static void start() {
        system = StandaloneSystem.start(new StandaloneSettings(0, TestKafka.uniqueStateDir("generated-client"),
                Optional.empty(), 0));
        ApiClient client = new ApiClient();
        client.updateBaseUri("http://localhost:" + system.gatewayPort());
        client.setReadTimeout(Duration.ofSeconds(15));
        orders = new OrdersControllerApi(client);
        subscriptions = new WebhookSubscriptionsControllerApi(client);
        clock = new ClockControllerApi(client);
        batches = new BatchesControllerApi(client);
        FlowsControllerApi flows = new FlowsControllerApi(client);
        await().atMost(Duration.ofSeconds(60)).until(() -> flows.listFlows().getFlows().stream()
                .anyMatch(flow -> "purchase_request".equals(flow.getId()) && flow.getPublishedVersion() != null));
    }

    @AfterAll
    static void stop() {
        if (system != null) {
            system.close();
        }
    }

    /** A purchase request over 1,000 stops at the manager's approval (node "approval"). */
    private static StartOrderRequest purchaseRequest() {
        return new StartOrderRequest().flowId("purchase_request").input(new StartOrderRequestInput()
                .type(StartOrderRequestInput.TypeEnum.PURCHASE_REQUEST)
                .customerId("dept_generated_client")
                .addLinesItem(new StartOrderRequestInputLinesInner().sku("LAPTOP-14").qty(2))
                .meta(Map.of("shipTo", "HQ, 2nd floor")));
    }

    private static OrderState waitingAtApproval(String orderId) {
        return await().atMost(Duration.ofSeconds(60)).until(() -> orders.getOrder(orderId, null, null),
                state -> state.getStatus() == OrderStatus.WAITING && state.getWaits() != null
                        && state.getWaits().stream().map(OrderStateWaitsInner::getNodeId).toList().contains("approval"));
    }

    @Test
    void starts_reads_and_approves_an_order() throws ApiException {
        String orderId = orders.startOrder(purchaseRequest(), "generated-client-" + System.nanoTime()).getOrderId();
        assertThat(orderId).startsWith("ord_");

        OrderState waiting = waitingAtApproval(orderId);
        assertThat(waiting.getOrderId()).isEqualTo(orderId);
        OrderStateWaitsInner approval = waiting.getWaits().getFirst();
        assertThat(approval.getKind()).isEqualTo(OrderStateWaitsInner.KindEnum.APPROVAL);
        assertThat(approval.getDeadline()).as("epoch milliseconds fit the generated type")
                .isGreaterThan(System.currentTimeMillis());
        assertThat(waiting.getFlow().getFlowId()).as("the pinned flow version is a typed model")
                .isEqualTo("purchase_request");
        assertThat(waiting.getFlow().getVersion()).isPositive();
        assertThat(waiting.getNodes()).containsKey("approval");

        var decided = orders.decideApproval(orderId, "approval", new DecideApprovalRequest()
                .decision(DecideApprovalRequest.DecisionEnum.APPROVED).note("budgeted"), null);
        assertThat(decided.getOk()).isEqualTo(true);
        assertThat(decided.getVersion()).as("the version the decision produced").isGreaterThan(waiting.getVersion());
        assertThat(orders.getOrder(orderId, decided.getVersion(), null).getVersion())
                .as("a read with minVersion sees the decision").isGreaterThanOrEqualTo(decided.getVersion());
        await().atMost(Duration.ofSeconds(60)).until(() -> orders.getOrder(orderId, null, null).getStatus(),
                status -> status == OrderStatus.COMPLETED);
    }

    @Test
    void cancels_a_waiting_order() throws ApiException {
        String orderId = orders.startOrder(purchaseRequest(), null).getOrderId();
        waitingAtApproval(orderId);

        var reply = orders.cancelOrder(orderId, null, new CancelOrderRequest().reason("changed plans"));
        assertThat(reply.getOk()).isTrue();
        OrderState cancelled = orders.getOrder(orderId, reply.getVersion(), null);
        assertThat(cancelled.getStatus()).isEqualTo(OrderStatus.CANCELLED);
        assertThat(cancelled.getReason()).isEqualTo("changed plans");
        assertThat(cancelled.getWaits()).isNullOrEmpty();
    }

    /** The clock routes are in the client; this system runs without CLOCK_CONTROL, so they answer 404. */
    @Test
    void the_clock_routes_answer_404_while_clock_control_is_off() {
        assertThatThrownBy(() -> clock.getClock())
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.getCode()).isEqualTo(404));
        assertThatThrownBy(() -> clock.setClock(new SetClockRequest().advanceBy("PT2H")))
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.getCode()).isEqualTo(404));
        assertThatThrownBy(() -> clock.resetClock())
                .isInstanceOfSatisfying(ApiException.class, e -> assertThat(e.getCode()).isEqualTo(404));
    }

    @Test
    void a_batch_cancels_the_orders_it_names_and_reports_its_progress() throws ApiException {
        List<String> picked = List.of(orders.startOrder(purchaseRequest(), null).getOrderId(),
                orders.startOrder(purchaseRequest(), null).getOrderId());
        picked.forEach(GeneratedJavaClientEndToEndTest::waitingAtApproval);

        Batch accepted = batches.createBatch(new CreateBatchRequest().orderIds(picked)
                .action(CreateBatchRequest.ActionEnum.CANCEL).reason("ordered twice"));
        assertThat(accepted.getId()).startsWith("bat_");
        assertThat(accepted.getPicked()).isEqualTo(2);

        Batch completed = await().atMost(Duration.ofSeconds(60)).until(() -> batches.getBatch(accepted.getId()),
                batch -> batch.getState() == Batch.StateEnum.COMPLETED);
        assertThat(completed.getDone()).isEqualTo(2);
        assertThat(completed.getFailed()).isZero();
        for (String orderId : picked) {
            assertThat(orders.getOrder(orderId, null, null).getStatus()).isEqualTo(OrderStatus.CANCELLED);
        }
        assertThat(batches.listBatches(null, "10").getBatches()).extracting(Batch::getId).contains(accepted.getId());
    }

    @Test
    void a_refused_request_is_a_400_with_the_issue_the_client_can_read() {
        CreateWebhookSubscriptionRequest starAndMore = new CreateWebhookSubscriptionRequest()
                .url("https://hooks.example.com/orders").events(List.of(EventsEnum.STAR, EventsEnum.ORDER_PAID));
        assertThatThrownBy(() -> subscriptions.createWebhookSubscription(starAndMore))
                .isInstanceOfSatisfying(ApiException.class, e -> {
                    assertThat(e.getCode()).isEqualTo(400);
                    assertThat(e.getResponseBody()).contains("\"path\":\"/events\"");
                });
    }
}

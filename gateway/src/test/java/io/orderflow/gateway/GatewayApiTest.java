package io.orderflow.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.gateway.testing.FakeProcessor.FakeOrder;
import io.orderflow.gateway.testing.TestFlows;
import io.orderflow.schemas.commands.Caller;
import io.orderflow.schemas.commands.CommandEnvelope;
import io.orderflow.schemas.commands.OrderCommand;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.model.OrderType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

class GatewayApiTest extends GatewayIntegrationTest {

    // ---- helpers -------------------------------------------------------------------------------------------------

    private WebTestClient.ResponseSpec post(String path, String body) {
        return post(path, body, null);
    }

    private WebTestClient.ResponseSpec post(String path, String body, String idempotencyKey) {
        return post(path, body, "Idempotency-Key", idempotencyKey);
    }

    private WebTestClient.ResponseSpec post(String path, String body, String header, String value) {
        WebTestClient.RequestBodySpec request = http.post().uri(path).contentType(MediaType.APPLICATION_JSON);
        if (value != null) {
            request.header(header, value);
        }
        return body == null ? request.exchange() : request.bodyValue(body).exchange();
    }

    private static JsonNode json(EntityExchangeResult<byte[]> result) {
        return Json.MAPPER.readTree(result.getResponseBody());
    }

    private String startOrder() {
        return json(post("/api/v1/orders", storefrontOrder()).expectStatus().isCreated().expectBody().returnResult())
                .get("orderId").asString();
    }

    private String orderWaiting(String event, String approvalNode) {
        String id = startOrder();
        PROCESSOR.put(new FakeOrder(id, "storefront_order", "fp", "waiting", event, approvalNode, 0));
        return id;
    }

    private <T extends OrderCommand> T lastCommand(String orderId, Class<T> type) {
        return PROCESSOR.received().stream().map(CommandEnvelope::command)
                .filter(c -> c.orderId().equals(orderId) && type.isInstance(c)).map(type::cast)
                .reduce((a, b) -> b).orElseThrow();
    }

    private int commandsReceived() {
        return PROCESSOR.received().size();
    }

    // ---- walking skeleton ----------------------------------------------------------------------------------------

    @Test
    void health_answers_ok_with_the_service_name() {
        http.get().uri("/health").exchange().expectStatus().isOk()
                .expectBody().json("{\"ok\": true, \"service\": \"gateway\"}", true);
    }

    @Nested
    class Flows {

        @Test
        void lists_every_flow_most_recently_updated_first_with_the_flow_fields() {
            JsonNode flows = json(http.get().uri("/api/v1/flows").exchange().expectStatus().isOk()
                    .expectBody().returnResult()).get("flows");
            List<String> ids = flows.valueStream().map(f -> f.get("id").asString())
                    .filter(id -> List.of("storefront_order", "b2b_order", "draft_flow").contains(id)).toList();
            assertThat(ids).containsExactly("b2b_order", "draft_flow", "storefront_order");
            JsonNode b2b = flows.valueStream().filter(f -> f.get("id").asString().equals("b2b_order")).findFirst()
                    .orElseThrow();
            assertThat(Json.MAPPER.convertValue(b2b, Map.class)).containsExactlyInAnyOrderEntriesOf(Map.of(
                    "id", "b2b_order", "name", "Flow b2b_order", "description", "A test flow",
                    "orderType", "b2b_order", "publishedVersion", 2, "updatedAt", 3000, "nodeCount", 6));
            JsonNode draft = flows.valueStream().filter(f -> f.get("id").asString().equals("draft_flow")).findFirst()
                    .orElseThrow();
            assertThat(draft.has("publishedVersion")).isTrue();
            assertThat(draft.get("publishedVersion").isNull()).isTrue();
            assertThat(draft.get("nodeCount").asInt()).isZero();
        }

        @Test
        void keeps_up_with_the_flows_topic() {
            TestFlows.publish(BOOTSTRAP, TestFlows.flow("late_flow", OrderType.SUBSCRIPTION, 1, 9_000_000_000_000L, 2));
            await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                    json(http.get().uri("/api/v1/flows").exchange().expectBody().returnResult())
                            .get("flows").get(0).get("id").asString()).isEqualTo("late_flow"));
        }
    }

    @Nested
    class StartAndRead {

        @Test
        void a_started_order_answers_201_with_location_and_is_readable() {
            var result = post("/api/v1/orders", storefrontOrder()).expectStatus().isCreated()
                    .expectHeader().valueMatches("Location", "/api/v1/orders/ord_[0-9a-f]{24}")
                    .expectBody().returnResult();
            String orderId = json(result).get("orderId").asString();
            assertThat(result.getResponseHeaders().getLocation()).hasToString("/api/v1/orders/" + orderId);
            assertThat(json(result)).isEqualTo(Json.object().put("orderId", orderId).put("version", 1));
            assertThat(result.getResponseHeaders().getETag()).isEqualTo("\"1\"");

            http.get().uri("/api/v1/orders/{id}", orderId).exchange().expectStatus().isOk()
                    .expectBody().jsonPath("$.orderId").isEqualTo(orderId).jsonPath("$.status").isEqualTo("queued");
        }

        @Test
        void the_start_command_carries_the_pinned_version_and_the_defaulted_input() {
            String orderId = startOrder();
            CommandEnvelope envelope = PROCESSOR.received().stream()
                    .filter(e -> e.command().orderId().equals(orderId)).findFirst().orElseThrow();
            assertThat(envelope.caller()).isEqualTo(Caller.OPEN);
            assertThat(envelope.replyTo()).startsWith("gateway-");
            OrderCommand.StartOrder start = (OrderCommand.StartOrder) envelope.command();
            assertThat(start.flow().flowId()).isEqualTo("storefront_order");
            assertThat(start.flow().version()).isEqualTo(1);
            assertThat(start.input().get("currency").asString()).isEqualTo("USD");
            assertThat(start.vars().isObject()).isTrue();
            assertThat(start.idempotent()).isFalse();
            assertThat(start.fingerprint()).as("without an Idempotency-Key nothing can repeat the start").isNull();
        }

        @Test
        void a_version_pins_that_version_and_without_one_the_latest_is_used() {
            String body = """
                    {"flowId": "b2b_order", "version": 1, "input": {"type": "b2b_order", "currency": "EUR"}}""";
            String pinned = json(post("/api/v1/orders", body).expectStatus().isCreated().expectBody().returnResult())
                    .get("orderId").asString();
            assertThat(lastCommand(pinned, OrderCommand.StartOrder.class).flow().version()).isEqualTo(1);

            String latest = json(post("/api/v1/orders", "{\"flowId\": \"b2b_order\", \"input\": {\"type\": \"b2b_order\"}}")
                    .expectStatus().isCreated().expectBody().returnResult()).get("orderId").asString();
            assertThat(lastCommand(latest, OrderCommand.StartOrder.class).flow().version()).isEqualTo(2);
        }

        @Test
        void unknown_flow_or_version_is_404_and_an_unpublished_flow_409() {
            int before = commandsReceived();
            post("/api/v1/orders", "{\"flowId\": \"nope\", \"input\": {\"type\": \"reorder\"}}")
                    .expectStatus().isNotFound().expectBody().json("{\"error\": \"Flow nope not found\"}", true);
            post("/api/v1/orders", "{\"flowId\": \"b2b_order\", \"version\": 3, \"input\": {\"type\": \"b2b_order\"}}")
                    .expectStatus().isNotFound().expectBody().jsonPath("$.error").isEqualTo("Flow b2b_order has no version 3");
            post("/api/v1/orders", "{\"flowId\": \"draft_flow\", \"input\": {\"type\": \"reorder\"}}")
                    .expectStatus().isEqualTo(409)
                    .expectBody().json("{\"error\": \"Flow draft_flow has no published version\"}", true);
            assertThat(commandsReceived()).isEqualTo(before);
        }

        @Test
        void an_unknown_or_malformed_order_id_is_404() {
            http.get().uri("/api/v1/orders/ord_doesnotexist").exchange().expectStatus().isNotFound()
                    .expectBody().json("{\"error\": \"Order ord_doesnotexist not found\"}", true);
            http.get().uri("/api/v1/orders/not-an-order").exchange().expectStatus().isNotFound()
                    .expectBody().json("{\"error\": \"Order not-an-order not found\"}", true);
        }

        @Test
        void an_unknown_route_is_404_with_the_error_shape() {
            http.get().uri("/api/v1/nothing-here").exchange().expectStatus().isNotFound()
                    .expectBody().json("{\"error\": \"Not found\"}", true);
        }
    }

    @Nested
    class InvalidStarts {

        private void rejected(String body, String key, String error) {
            int before = commandsReceived();
            post("/api/v1/orders", body, key).expectStatus().isBadRequest()
                    .expectBody().jsonPath("$.error").isEqualTo(error);
            assertThat(commandsReceived()).as("nothing invalid reaches Kafka").isEqualTo(before);
        }

        @Test
        void an_invalid_body_lists_its_issues_with_paths() {
            var result = post("/api/v1/orders", """
                    {"flowId": "storefront_order", "input": {"type": "storefront_order",
                     "lines": [{"sku": "A", "qty": 0}]}}""").expectStatus().isBadRequest().expectBody().returnResult();
            JsonNode body = json(result);
            assertThat(body.get("error").asString()).isEqualTo("Invalid request body");
            assertThat(body.get("issues").valueStream().map(i -> i.get("path").asString()))
                    .containsExactly("/input/lines/0/qty");
            assertThat(body.get("issues").get(0).get("message").asString()).isNotBlank();
        }

        @Test
        void bad_bodies_are_400() {
            rejected("{\"input\": {\"type\": \"storefront_order\"}}", null, "Invalid request body");
            rejected("{\"flowId\": \"storefront_order\", \"input\": {\"type\": \"gift\"}}", null, "Invalid request body");
            rejected("{\"flowId\": \"storefront_order\", \"input\": {}}", null, "Invalid request body");
            rejected("{\"flowId\": \"storefront_order\", \"input\": {\"type\": \"reorder\"}, \"vars\": []}", null,
                    "Invalid request body");
            rejected("{\"flowId\": \"storefront_order\", \"input\": {\"type\": \"reorder\", \"lines\": [{\"sku\": \"A\", \"qty\": 1.5}]}}",
                    null, "Invalid request body");
            rejected("not json", null, "Request body is not valid JSON");
            rejected(null, null, "Invalid request body");
        }

        @Test
        void a_currency_without_an_exchange_rate_is_400() {
            rejected("{\"flowId\": \"storefront_order\", \"input\": {\"type\": \"reorder\", \"currency\": \"JPY\"}}",
                    null, "Invalid request body");
            for (String currency : List.of("USD", "EUR", "GBP", "CAD")) {
                post("/api/v1/orders", "{\"flowId\": \"storefront_order\", \"input\": {\"type\": \"reorder\", \"currency\": \""
                        + currency + "\"}}").expectStatus().isCreated();
            }
        }

        @Test
        void document_text_may_have_50000_characters_but_not_50001() {
            String template = "{\"flowId\": \"storefront_order\", \"input\": {\"type\": \"b2b_order\", \"documentText\": \"%s\"}}";
            post("/api/v1/orders", template.formatted("x".repeat(50_000))).expectStatus().isCreated();
            rejected(template.formatted("x".repeat(50_001)), null, "Invalid request body");
        }

        @Test
        void document_text_counts_characters_not_bytes() {
            String template = "{\"flowId\": \"storefront_order\", \"input\": {\"type\": \"b2b_order\", \"documentText\": \"%s\"}}";
            post("/api/v1/orders", template.formatted("é".repeat(50_000))).expectStatus().isCreated();
        }

        @Test
        void an_oversized_body_is_413_in_the_error_shape_and_starts_nothing() {
            int before = commandsReceived();
            post("/api/v1/orders", "{\"flowId\": \"" + "f".repeat(1_000_000) + "\"}", null)
                    .expectStatus().isEqualTo(413)
                    .expectBody().json("{\"error\": \"Request body is too large\"}", true);
            assertThat(commandsReceived()).as("nothing reaches Kafka").isEqualTo(before);
        }

        @Test
        void an_idempotency_key_may_have_255_characters_but_not_256() {
            post("/api/v1/orders", storefrontOrder(), "k".repeat(255)).expectStatus().isCreated();
            rejected(storefrontOrder(), "k".repeat(256), "Idempotency-Key must be 1 to 255 characters");
        }
    }

    @Nested
    class IdempotentStart {

        private static final String REORDERED = """
                {"input": {"lines": [{"unitPrice": 9.50, "qty": 2, "sku": "SKU-1"}], "customerId": "c-1",
                 "type": "storefront_order"}, "flowId": "storefront_order"}""";

        @Test
        void a_repeat_replays_the_first_order_whatever_the_property_order() {
            String key = "key-" + System.nanoTime();
            JsonNode first = json(post("/api/v1/orders", storefrontOrder(), key).expectStatus().isCreated()
                    .expectBody().returnResult());
            String orderId = first.get("orderId").asString();
            post("/api/v1/orders", storefrontOrder(), key).expectStatus().isOk().expectHeader().doesNotExist("Location")
                    .expectBody().json("{\"orderId\": \"" + orderId + "\", \"replayed\": true, \"version\": 1}", true);
            post("/api/v1/orders", REORDERED, key).expectStatus().isOk()
                    .expectBody().json("{\"orderId\": \"" + orderId + "\", \"replayed\": true, \"version\": 1}", true);
            assertThat(lastCommand(orderId, OrderCommand.StartOrder.class).idempotent()).isTrue();
        }

        @Test
        void a_repeat_with_a_different_body_is_422_and_changes_nothing() {
            String key = "key-" + System.nanoTime();
            String orderId = json(post("/api/v1/orders", storefrontOrder(), key).expectStatus().isCreated()
                    .expectBody().returnResult()).get("orderId").asString();
            FakeOrder before = PROCESSOR.orders().get(orderId);
            post("/api/v1/orders", storefrontOrder().replace("c-1", "c-2"), key).expectStatus().isEqualTo(422)
                    .expectBody().json("{\"error\": \"Idempotency-Key was already used with a different request body\"}", true);
            assertThat(PROCESSOR.orders().get(orderId)).isEqualTo(before);
        }

        @Test
        void fifty_racing_identical_requests_give_one_201_and_49_replays_of_one_order() {
            String key = "race-" + System.nanoTime();
            List<EntityExchangeResult<byte[]>> results = race(i -> storefrontOrder(), key);
            assertThat(results).filteredOn(r -> r.getStatus().value() == 201).hasSize(1);
            assertThat(results).filteredOn(r -> r.getStatus().value() == 200).hasSize(49)
                    .allSatisfy(r -> assertThat(json(r).get("replayed").asBoolean()).isTrue());
            assertThat(results.stream().map(r -> json(r).get("orderId").asString()).distinct()).hasSize(1);
            String orderId = json(results.getFirst()).get("orderId").asString();
            assertThat(PROCESSOR.orders()).containsKey(orderId);
        }

        @Test
        void fifty_racing_requests_with_different_bodies_start_exactly_one_order() {
            String key = "race-diff-" + System.nanoTime();
            int ordersBefore = PROCESSOR.orders().size();
            List<EntityExchangeResult<byte[]>> results = race(i -> storefrontOrder().replace("c-1", "c-" + i), key);
            assertThat(results).filteredOn(r -> r.getStatus().value() == 201).hasSize(1);
            assertThat(results).filteredOn(r -> r.getStatus().value() == 422).hasSize(49);
            assertThat(PROCESSOR.orders().size()).isEqualTo(ordersBefore + 1);
        }

        private List<EntityExchangeResult<byte[]>> race(Function<Integer, String> body, String key) {
            try (ExecutorService pool = Executors.newFixedThreadPool(50)) {
                List<CompletableFuture<EntityExchangeResult<byte[]>>> calls = IntStream.range(0, 50)
                        .mapToObj(i -> CompletableFuture.supplyAsync(
                                () -> post("/api/v1/orders", body.apply(i), key).expectBody().returnResult(), pool))
                        .toList();
                return calls.stream().map(CompletableFuture::join).toList();
            }
        }
    }

    @Nested
    class ListOrders {

        @Test
        void passes_the_filters_and_the_limit_to_the_query() {
            String orderId = startOrder();
            http.get().uri("/api/v1/orders?type=storefront_order&status=queued&q={q}", orderId).exchange()
                    .expectStatus().isOk()
                    .expectBody().jsonPath("$.orders.length()").isEqualTo(1).jsonPath("$.orders[0].id").isEqualTo(orderId);
            assertThat(QUERIES.lastListQuery()).contains("type=storefront_order", "status=queued", "q=" + orderId,
                    "limit=200");
            http.get().uri("/api/v1/orders?type=reorder&q={q}", orderId).exchange().expectStatus().isOk()
                    .expectBody().jsonPath("$.orders.length()").isEqualTo(0);
        }

        @Test
        void a_query_with_plus_ampersand_or_braces_reaches_the_processor_as_written() {
            String q = "jane+shop@example.com & {x}";
            http.get().uri(uri -> uri.path("/api/v1/orders").queryParam("q", "{q}").build(q)).exchange()
                    .expectStatus().isOk();
            String forwarded = java.util.Arrays.stream(QUERIES.lastListQuery().split("&"))
                    .filter(part -> part.startsWith("q=")).findFirst().orElseThrow().substring(2);
            assertThat(java.net.URLDecoder.decode(forwarded, java.nio.charset.StandardCharsets.UTF_8)).isEqualTo(q);
        }

        @Test
        void unknown_type_or_status_is_400() {
            http.get().uri("/api/v1/orders?status=done").exchange().expectStatus().isBadRequest()
                    .expectBody().json("{\"error\": \"Unknown order status 'done'\"}", true);
            http.get().uri("/api/v1/orders?type=gift").exchange().expectStatus().isBadRequest()
                    .expectBody().json("{\"error\": \"Unknown order type 'gift'\"}", true);
        }

        @Test
        void a_plain_list_stays_the_contracts_orders_and_names_the_next_page_in_a_link_header() {
            QUERIES.answerExtraRows(250);
            try {
                EntityExchangeResult<byte[]> result = http.get().uri("/api/v1/orders?type=reorder").exchange()
                        .expectStatus().isOk().expectBody().returnResult();
                JsonNode body = Json.MAPPER.readTree(result.getResponseBody());
                assertThat(body.propertyNames()).containsExactly("orders");
                assertThat(body.get("orders")).hasSize(200);
                assertThat(result.getResponseHeaders().getFirst("Link"))
                        .isEqualTo("</api/v1/orders?type=reorder&cursor=fake-next-page>; rel=\"next\"");
            } finally {
                QUERIES.answerExtraRows(0);
            }
        }

        @Test
        void a_caller_who_pages_gets_next_and_every_paging_parameter_reaches_the_processor() {
            startOrder();
            startOrder();
            http.get().uri("/api/v1/orders?limit=1").exchange().expectStatus().isOk()
                    .expectBody().jsonPath("$.orders.length()").isEqualTo(1)
                    .jsonPath("$.next").isEqualTo("fake-next-page");
            assertThat(QUERIES.lastListQuery()).contains("limit=1");
            http.get().uri("/api/v1/orders?since=1000&until=2000&sort=updated&cursor=abc_-9&limit=50").exchange()
                    .expectStatus().isOk();
            assertThat(QUERIES.lastListQuery()).contains("since=1000", "until=2000", "sort=updated", "cursor=abc_-9",
                    "limit=50");
        }

        @Test
        void bad_paging_parameters_are_400_before_the_processor_is_asked() {
            for (String query : List.of("limit=0", "limit=201", "limit=ten", "sort=price", "since=yesterday",
                    "until=1.5", "cursor=a*b")) {
                http.get().uri("/api/v1/orders?" + query).exchange().expectStatus().isBadRequest()
                        .expectBody().jsonPath("$.error").exists();
            }
        }

        @Test
        void the_counts_are_the_processors_by_status() {
            startOrder();
            http.get().uri("/api/v1/orders/counts?type=storefront_order").exchange().expectStatus().isOk()
                    .expectBody()
                    .jsonPath("$.counts.queued").value(n -> assertThat(((Number) n).intValue()).isPositive())
                    .jsonPath("$.counts.completed").exists().jsonPath("$.total").exists();
            http.get().uri("/api/v1/orders/counts?type=gift").exchange().expectStatus().isBadRequest();
        }

        @Test
        void the_approvals_inbox_asks_the_processor_by_status_and_assignee() {
            String orderId = orderWaiting(null, "approval");
            http.get().uri("/api/v1/approvals?assignee={a}", "Manager").exchange().expectStatus().isOk()
                    .expectBody()
                    .jsonPath("$.approvals[?(@.orderId == '" + orderId + "')].status").isEqualTo("pending");
            assertThat(QUERIES.lastApprovalsQuery()).contains("status=pending", "assignee=Manager");
            http.get().uri("/api/v1/approvals?status=escalated&cursor=xyz").exchange().expectStatus().isOk();
            assertThat(QUERIES.lastApprovalsQuery()).contains("status=escalated", "cursor=xyz");
            http.get().uri("/api/v1/approvals?status=late").exchange().expectStatus().isBadRequest()
                    .expectBody().json("{\"error\": \"Unknown approval status 'late'\"}", true);
        }
    }

    @Nested
    class Events {

        @Test
        void an_event_reaches_the_waiting_node() {
            String orderId = orderWaiting("payment.received", null);
            post("/api/v1/orders/" + orderId + "/events", "{\"event\": \"payment.received\", \"payload\": {\"amount\": 5}}")
                    .expectStatus().isOk().expectBody().json("{\"delivered\": true, \"nodeId\": \"wait_payment\", \"version\": 2}", true);
            OrderCommand.DeliverEvent sent = lastCommand(orderId, OrderCommand.DeliverEvent.class);
            assertThat(sent.payload().get("amount").asInt()).isEqualTo(5);
        }

        @Test
        void an_event_nobody_waits_for_is_not_delivered() {
            String orderId = orderWaiting("payment.received", null);
            post("/api/v1/orders/" + orderId + "/events", "{\"event\": \"return.requested\"}")
                    .expectStatus().isOk().expectBody().json("{\"delivered\": false, \"version\": 1}", true);
            assertThat(lastCommand(orderId, OrderCommand.DeliverEvent.class).payload().isObject()).isTrue();
        }

        @Test
        void bad_event_bodies_are_400_and_unknown_orders_404() {
            post("/api/v1/orders/ord_x1/events", "{\"payload\": {}}").expectStatus().isBadRequest()
                    .expectBody().jsonPath("$.issues[0].path").isEqualTo("");
            post("/api/v1/orders/ord_x1/events", "{\"event\": \"a\", \"payload\": 3}").expectStatus().isBadRequest();
            post("/api/v1/orders/ord_unknown/events", "{\"event\": \"payment.received\"}").expectStatus().isNotFound()
                    .expectBody().json("{\"error\": \"Order ord_unknown not found\"}", true);
        }
    }

    @Nested
    class Approvals {

        @Test
        void a_decision_on_the_waiting_node_is_ok_and_by_defaults_to_api() {
            String orderId = orderWaiting(null, "approve");
            post("/api/v1/orders/" + orderId + "/approvals/approve", "{\"decision\": \"approved\", \"note\": \"fine\"}")
                    .expectStatus().isOk().expectHeader().valueEquals("ETag", "\"2\"")
                    .expectBody().json("{\"ok\": true, \"version\": 2}", true);
            OrderCommand.DecideApproval decided = lastCommand(orderId, OrderCommand.DecideApproval.class);
            assertThat(decided.decision()).isEqualTo("approved");
            assertThat(decided.by()).isEqualTo("api");
            assertThat(decided.note()).isEqualTo("fine");
        }

        @Test
        void by_is_honoured_for_the_open_deployment() {
            String orderId = orderWaiting(null, "approve");
            post("/api/v1/orders/" + orderId + "/approvals/approve", "{\"decision\": \"rejected\", \"by\": \"dana\"}")
                    .expectStatus().isOk();
            assertThat(lastCommand(orderId, OrderCommand.DecideApproval.class).by()).isEqualTo("dana");
        }

        @Test
        void a_node_not_waiting_for_an_approval_is_409() {
            String orderId = orderWaiting(null, "approve");
            post("/api/v1/orders/" + orderId + "/approvals/ship", "{\"decision\": \"approved\"}")
                    .expectStatus().isEqualTo(409)
                    .expectBody().json("{\"error\": \"That node is not waiting for an approval.\"}", true);
        }

        @Test
        void a_bad_decision_is_400_and_an_unknown_order_404() {
            post("/api/v1/orders/ord_x1/approvals/approve", "{\"decision\": \"maybe\"}").expectStatus().isBadRequest()
                    .expectBody().jsonPath("$.issues[0].path").isEqualTo("/decision");
            post("/api/v1/orders/ord_unknown/approvals/approve", "{\"decision\": \"approved\"}")
                    .expectStatus().isNotFound();
        }
    }

    @Nested
    class Cancel {

        @Test
        void cancels_a_running_order_with_the_default_reason() {
            String orderId = startOrder();
            post("/api/v1/orders/" + orderId + "/cancel", null).expectStatus().isOk()
                    .expectBody().json("{\"ok\": true, \"version\": 2}", true);
            assertThat(lastCommand(orderId, OrderCommand.CancelOrder.class).reason()).isEqualTo("Cancelled via API");
        }

        @Test
        void an_ended_order_answers_ok_false_with_its_status() {
            String orderId = startOrder();
            PROCESSOR.put(new FakeOrder(orderId, "storefront_order", "fp", "completed", null, null, 0));
            post("/api/v1/orders/" + orderId + "/cancel", "{\"reason\": \"changed my mind\"}").expectStatus().isOk()
                    .expectBody().json("{\"ok\": false, \"status\": \"completed\", \"version\": 1}", true);
            assertThat(lastCommand(orderId, OrderCommand.CancelOrder.class).reason()).isEqualTo("changed my mind");
        }

        @Test
        void a_bad_body_is_400_and_an_unknown_order_404() {
            post("/api/v1/orders/ord_x1/cancel", "{\"reason\": 7}").expectStatus().isBadRequest();
            post("/api/v1/orders/ord_unknown/cancel", "{}").expectStatus().isNotFound()
                    .expectBody().json("{\"error\": \"Order ord_unknown not found\"}", true);
        }
    }

    /** Read your own writes: versions, ETag, If-None-Match, minVersion and If-Match. */
    @Nested
    class Versions {

        @Test
        void a_read_answers_the_version_as_its_etag_and_304_while_it_has_not_changed() {
            String orderId = startOrder();
            http.get().uri("/api/v1/orders/" + orderId).exchange().expectStatus().isOk()
                    .expectHeader().valueEquals("ETag", "\"1\"")
                    .expectBody().jsonPath("$.version").isEqualTo(1);
            http.get().uri("/api/v1/orders/" + orderId).header("If-None-Match", "\"1\"").exchange()
                    .expectStatus().isNotModified().expectHeader().valueEquals("ETag", "\"1\"")
                    .expectBody().isEmpty();
            post("/api/v1/orders/" + orderId + "/cancel", null).expectStatus().isOk()
                    .expectHeader().valueEquals("ETag", "\"2\"");
            http.get().uri("/api/v1/orders/" + orderId).header("If-None-Match", "\"1\"").exchange()
                    .expectStatus().isOk().expectHeader().valueEquals("ETag", "\"2\"")
                    .expectBody().jsonPath("$.status").isEqualTo("cancelled");
        }

        @Test
        void min_version_answers_once_the_order_has_it_and_503_with_retry_after_when_it_does_not_come() {
            String orderId = startOrder();
            http.get().uri("/api/v1/orders/" + orderId + "?minVersion=1").exchange().expectStatus().isOk()
                    .expectBody().jsonPath("$.version").isEqualTo(1);
            long before = System.nanoTime();
            http.get().uri("/api/v1/orders/" + orderId + "?minVersion=2").exchange()
                    .expectStatus().isEqualTo(503).expectHeader().valueEquals("Retry-After", "1")
                    .expectBody().jsonPath("$.error")
                    .isEqualTo("Order " + orderId + " has not reached version 2 within 5 seconds; retry shortly");
            assertThat(java.time.Duration.ofNanos(System.nanoTime() - before)).isGreaterThanOrEqualTo(
                    java.time.Duration.ofMillis(4_900));
            http.get().uri("/api/v1/orders/" + orderId + "?minVersion=two").exchange().expectStatus().isBadRequest();
        }

        @Test
        void min_version_waits_for_a_change_made_while_it_waits() {
            String orderId = startOrder();
            var waiting = reactor.core.publisher.Mono.delay(java.time.Duration.ofMillis(400))
                    .doOnNext(tick -> post("/api/v1/orders/" + orderId + "/cancel", null).expectStatus().isOk())
                    .subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic()).subscribe();
            try {
                http.get().uri("/api/v1/orders/" + orderId + "?minVersion=2").exchange().expectStatus().isOk()
                        .expectHeader().valueEquals("ETag", "\"2\"")
                        .expectBody().jsonPath("$.status").isEqualTo("cancelled");
            } finally {
                waiting.dispose();
            }
        }

        @Test
        void if_match_goes_to_the_agent_with_the_command_and_a_stale_one_is_412() {
            String orderId = orderWaiting(null, "approve");
            post("/api/v1/orders/" + orderId + "/cancel", null, "If-Match", "\"7\"")
                    .expectStatus().isEqualTo(412).expectHeader().doesNotExist("ETag")
                    .expectBody().json("{\"error\": \"Order " + orderId + " is at version 1, not 7: it changed "
                            + "since it was read; read it again and retry\"}", true);
            assertThat(lastCommand(orderId, OrderCommand.CancelOrder.class).expectedVersion()).isEqualTo(7L);
            assertThat(PROCESSOR.orders().get(orderId).status()).isEqualTo("waiting");

            post("/api/v1/orders/" + orderId + "/approvals/approve", "{\"decision\": \"approved\"}", "If-Match",
                    "\"1\"").expectStatus().isOk().expectBody().jsonPath("$.version").isEqualTo(2);
            assertThat(lastCommand(orderId, OrderCommand.DecideApproval.class).expectedVersion()).isEqualTo(1L);

            post("/api/v1/orders/" + orderId + "/cancel", null, "If-Match", "*").expectStatus().isOk();
            assertThat(lastCommand(orderId, OrderCommand.CancelOrder.class).expectedVersion()).isNull();
        }

        @Test
        void a_malformed_if_match_is_400_and_sends_nothing() {
            String orderId = startOrder();
            int before = commandsReceived();
            post("/api/v1/orders/" + orderId + "/cancel", null, "If-Match", "version 1")
                    .expectStatus().isBadRequest().expectBody().jsonPath("$.error")
                    .isEqualTo("If-Match must name one order version as an entity tag, such as \"7\"");
            assertThat(commandsReceived()).isEqualTo(before);
        }
    }

    @Test
    void a_processor_that_does_not_answer_gives_503_with_retry_after() {
        String orderId = startOrder();
        PROCESSOR.silence(orderId);
        post("/api/v1/orders/" + orderId + "/cancel", "{}").expectStatus().isEqualTo(503)
                .expectHeader().exists("Retry-After")
                .expectBody().jsonPath("$.error").value(error -> assertThat((String) error).contains("Idempotency-Key"));
    }
}

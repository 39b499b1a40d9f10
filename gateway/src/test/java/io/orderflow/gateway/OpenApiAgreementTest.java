package io.orderflow.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.harrel.jsonschema.Validator;
import dev.harrel.jsonschema.ValidatorFactory;
import dev.harrel.jsonschema.providers.GsonNode;
import io.orderflow.gateway.testing.FakeProcessor;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.query.OrderView;
import io.orderflow.schemas.signing.WebhookSignature;
import java.io.IOException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.http.MediaType;

/**
 * The published OpenAPI document and the handlers agree: every sample body is accepted or rejected alike by the
 * handler (networknt) and by an independent JSON Schema 2020-12 validator (dev.harrel) run over the document.
 */
class OpenApiAgreementTest extends GatewayIntegrationTest {

    private static final String START = "/api/v1/orders";
    private static final String EVENTS = "/api/v1/orders/ord_agreement/events";
    private static final String DECIDE = "/api/v1/orders/ord_agreement/approvals/approve";
    private static final String CANCEL = "/api/v1/orders/ord_agreement/cancel";
    private static final String SUBSCRIBE = "/api/v1/webhook-subscriptions";
    private static final String SIGNED = "/api/v1/webhooks/events";
    private static final String DISMISS = "/api/v1/incidents/ord_agreement/dismiss";
    private static final String BATCH = "/api/v1/batches";

    private String document;

    @BeforeEach
    void fetchDocument() {
        document = new String(http.get().uri("/api/v1/openapi.json").exchange().expectStatus().isOk()
                .expectBody().returnResult().getResponseBody());
    }

    static Stream<Arguments> samples() {
        return Stream.of(
                // start an order
                Arguments.of(START, "{\"flowId\": \"storefront_order\", \"input\": {\"type\": \"storefront_order\"}}", true),
                Arguments.of(START, """
                        {"flowId": "storefront_order", "version": 1, "vars": {"a": 1},
                         "input": {"type": "b2b_order", "customerId": "c", "currency": "GBP", "documentText": "PO 1",
                                   "meta": {"shipTo": "x"}, "lines": [{"sku": "A", "name": "a", "qty": 3, "unitPrice": 0}]}}""", true),
                Arguments.of(START, "{\"flowId\": \"storefront_order\", \"input\": {\"type\": \"reorder\", \"currency\": \"JPY\"}}", false),
                Arguments.of(START, "{\"flowId\": \"storefront_order\", \"input\": {\"type\": \"reorder\", \"lines\": [{\"sku\": \"A\", \"qty\": -1}]}}", false),
                Arguments.of(START, "{\"flowId\": \"storefront_order\", \"input\": {\"type\": \"reorder\", \"lines\": [{\"qty\": 1}]}}", false),
                Arguments.of(START, "{\"flowId\": \"storefront_order\", \"input\": {\"type\": \"reorder\", \"lines\": [{\"sku\": \"A\", \"qty\": 1, \"unitPrice\": \"9\"}]}}", false),
                Arguments.of(START, "{\"flowId\": \"storefront_order\", \"version\": 0, \"input\": {\"type\": \"reorder\"}}", false),
                Arguments.of(START, "{\"flowId\": \"storefront_order\", \"version\": 2147483648, \"input\": {\"type\": \"reorder\"}}", false),
                Arguments.of(START, "{\"flowId\": \"storefront_order\", \"input\": {\"type\": \"reorder\", \"lines\": [{\"sku\": \"A\", \"qty\": 1e12}]}}", false),
                Arguments.of(START, "{\"flowId\": \"storefront_order\", \"input\": {\"type\": \"reorder\", \"meta\": \"m\"}}", false),
                Arguments.of(START, "{\"flowId\": \"\", \"input\": {\"type\": \"reorder\"}}", false),
                Arguments.of(START, "{\"flowId\": \"storefront_order\", \"input\": {\"type\": \"reorder\"}, \"extra\": 1}", false),
                Arguments.of(START, "{\"flowId\": \"storefront_order\", \"input\": {\"type\": \"reorder\", \"documentText\": \""
                        + "d".repeat(50_001) + "\"}}", false),
                Arguments.of(START, "[]", false),
                // deliver an event
                Arguments.of(EVENTS, "{\"event\": \"payment.received\"}", true),
                Arguments.of(EVENTS, "{\"event\": \"payment.received\", \"payload\": {\"source\": \"back-office\"}}", true),
                Arguments.of(EVENTS, "{\"event\": \"\"}", false),
                Arguments.of(EVENTS, "{\"event\": \"payment.received\", \"payload\": [1]}", false),
                Arguments.of(EVENTS, "{}", false),
                // decide an approval
                Arguments.of(DECIDE, "{\"decision\": \"approved\"}", true),
                Arguments.of(DECIDE, "{\"decision\": \"rejected\", \"by\": \"dana\", \"note\": \"too much\"}", true),
                Arguments.of(DECIDE, "{\"decision\": \"escalated\"}", false),
                Arguments.of(DECIDE, "{\"decision\": \"approved\", \"note\": 5}", false),
                Arguments.of(DECIDE, "{}", false),
                // cancel
                Arguments.of(CANCEL, "{}", true),
                Arguments.of(CANCEL, "{\"reason\": \"duplicate\"}", true),
                Arguments.of(CANCEL, "{\"reason\": null}", false),
                Arguments.of(CANCEL, "{\"why\": \"x\"}", false),
                // dismiss an incident
                Arguments.of(DISMISS, "{\"note\": \"refunded by hand\"}", true),
                Arguments.of(DISMISS, "{}", false),
                Arguments.of(DISMISS, "{\"note\": \"\"}", false),
                Arguments.of(DISMISS, "{\"note\": \"ok\", \"by\": \"x\"}", false),
                // start a batch (valid ones by ids of unknown orders, so nothing the other tests hold changes)
                Arguments.of(BATCH, "{\"orderIds\": [\"ord_agreement_none\"], \"action\": \"cancel\", \"reason\": \"dup\"}", true),
                Arguments.of(BATCH, "{\"orderIds\": [\"ord_agreement_none\"], \"action\": \"deliver_event\", \"event\": \"payment.received\", \"payload\": {\"a\": 1}, \"rate\": 2}", true),
                Arguments.of(BATCH, "{\"orderIds\": [\"ord_agreement_none\"], \"action\": \"decide_approval\", \"nodeId\": \"approval\", \"decision\": \"rejected\", \"note\": \"n\"}", true),
                Arguments.of(BATCH, "{\"filter\": {\"status\": \"failed\", \"type\": \"reorder\", \"q\": \"ord_agreement_none\", \"since\": 1, \"until\": 2}, \"action\": \"retry_incident\"}", true),
                Arguments.of(BATCH, "{\"filter\": {\"status\": \"sleeping\"}, \"action\": \"retry_incident\"}", false),
                Arguments.of(BATCH, "{\"filter\": {}, \"action\": \"archive\"}", false),
                Arguments.of(BATCH, "{\"filter\": {}, \"action\": \"cancel\", \"reason\": \"\"}", false),
                Arguments.of(BATCH, "{\"orderIds\": [], \"action\": \"retry_incident\"}", false),
                Arguments.of(BATCH, "{\"orderIds\": [\"x\"], \"action\": \"retry_incident\"}", false),
                Arguments.of(BATCH, "{\"filter\": {}, \"action\": \"retry_incident\", \"rate\": 0}", false),
                Arguments.of(BATCH, "{\"filter\": {}, \"action\": \"retry_incident\", \"extra\": 1}", false),
                // subscribe to webhooks
                Arguments.of(SUBSCRIBE, "{\"url\": \"https://example.com/hook\"}", true),
                Arguments.of(SUBSCRIBE, "{\"url\": \"http://localhost:9000/hook\", \"events\": [\"*\"]}", true),
                Arguments.of(SUBSCRIBE, "{\"url\": \"https://example.com/hook\", \"events\": [\"order.paid\", \"order.failed\"]}", true),
                Arguments.of(SUBSCRIBE, "{\"url\": \"mailto:ops@example.com\"}", false),
                Arguments.of(SUBSCRIBE, "{\"events\": [\"*\"]}", false),
                // signed inbound events (signed correctly, so only the body decides)
                Arguments.of(SIGNED, "{\"orderId\": \"ord_agreement\", \"event\": \"payment.received\"}", true),
                Arguments.of(SIGNED, "{\"orderId\": \"ord_agreement\", \"event\": \"payment.received\", \"payload\": {\"a\": 1}}", true),
                Arguments.of(SIGNED, "{\"orderId\": \"ord_agreement\", \"payload\": {}}", false),
                Arguments.of(SIGNED, "{\"orderId\": 1, \"event\": \"payment.received\"}", false));
    }

    @ParameterizedTest
    @MethodSource("samples")
    void handler_and_published_schema_agree(String path, String body, boolean valid) {
        assertThat(publishedSchemaAccepts(path, body)).as("published schema accepts").isEqualTo(valid);
        int status = http.post().uri(path).contentType(MediaType.APPLICATION_JSON)
                .header("X-Service-Signature", WebhookSignature.sign(WEBHOOK_SECRET, Instant.now(), body))
                .bodyValue(body).exchange()
                .expectBody().returnResult().getStatus().value();
        if (valid) {
            assertThat(status).as("handler accepts").isNotEqualTo(400);
        } else {
            assertThat(status).as("handler rejects").isEqualTo(400);
        }
    }

    /**
     * Client generators cannot compile a {@code oneOf} whose branch is an array {@code const} (nor {@code uniqueItems}
     * on an array of an enum): {@code events} is a plain array of an enum that includes {@code *}, and "{@code *}
     * stands alone" and "each event once" are checked beyond the schema.
     */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "[\"*\", \"order.paid\"]         | \"*\" stands alone",
            "[\"order.paid\", \"order.paid\"] | Each event is named once"})
    void events_is_an_array_of_an_enum_and_the_rules_beyond_it_are_checked_by_the_handler(String events,
                                                                                        String message) {
        JsonObject schema = JsonParser.parseString(document).getAsJsonObject().getAsJsonObject("components")
                .getAsJsonObject("schemas").getAsJsonObject("CreateWebhookSubscriptionRequest")
                .getAsJsonObject("properties").getAsJsonObject("events");
        assertThat(schema.keySet()).doesNotContain("oneOf", "anyOf", "const", "uniqueItems", "default");
        assertThat(schema.get("type").getAsString()).isEqualTo("array");
        assertThat(schema.getAsJsonObject("items").getAsJsonArray("enum").toString()).startsWith("[\"*\",");

        String body = "{\"url\": \"https://example.com/hook\", \"events\": " + events + "}";
        assertThat(publishedSchemaAccepts(SUBSCRIBE, body)).as("the schema alone accepts it").isTrue();
        int forwarded = DISPATCHER.received().size();
        http.post().uri(SUBSCRIBE).contentType(MediaType.APPLICATION_JSON).bodyValue(body).exchange()
                .expectStatus().isBadRequest()
                .expectBody().jsonPath("$.error").isEqualTo("Invalid request body")
                .jsonPath("$.issues.length()").isEqualTo(1)
                .jsonPath("$.issues[0].path").isEqualTo("/events")
                .jsonPath("$.issues[0].message").value(m -> assertThat((String) m).startsWith(message));
        assertThat(DISPATCHER.received()).hasSize(forwarded);
    }

    @Test
    void the_document_is_openapi_3_1_and_names_every_route() {
        JsonObject doc = JsonParser.parseString(document).getAsJsonObject();
        assertThat(doc.get("openapi").getAsString()).startsWith("3.1");
        assertThat(doc.getAsJsonObject("paths").keySet()).contains("/health", "/api/v1/flows", "/api/v1/orders",
                "/api/v1/orders/{id}", "/api/v1/orders/{id}/events", "/api/v1/orders/{id}/approvals/{nodeId}",
                "/api/v1/orders/{id}/cancel", "/api/v1/webhook-subscriptions", "/api/v1/webhook-subscriptions/{id}",
                "/api/v1/webhook-subscriptions/{id}/deliveries", "/api/v1/webhooks/events", "/api/v1/orders/counts",
                "/api/v1/approvals", "/api/v1/incidents/{id}/retry", "/api/v1/incidents/{id}/dismiss",
                "/api/v1/clock", "/api/v1/batches", "/api/v1/batches/{id}", "/api/v1/batches/{id}/stop",
                "/api/v1/flows/{id}/versions/{version}");
        JsonObject createBatch = doc.getAsJsonObject("paths").getAsJsonObject("/api/v1/batches")
                .getAsJsonObject("post");
        assertThat(createBatch.getAsJsonObject("responses").keySet()).contains("202", "400", "409", "413");
        assertThat(createBatch.getAsJsonObject("requestBody").toString()).contains("CreateBatchRequest");
        JsonObject paths = doc.getAsJsonObject("paths");
        assertThat(paths.getAsJsonObject("/api/v1/approvals").getAsJsonObject("get").getAsJsonObject("responses")
                .getAsJsonObject("200").toString()).contains("#/components/schemas/ApprovalRow");
        assertThat(paths.getAsJsonObject("/api/v1/orders").getAsJsonObject("get").toString())
                .contains("\"cursor\"", "\"since\"", "\"until\"", "\"sort\"", "\"limit\"");
        assertThat(doc.getAsJsonObject("components").getAsJsonObject("schemas").keySet()).contains(
                "StartOrderRequest", "DeliverEventRequest", "DecideApprovalRequest", "CancelOrderRequest",
                "CreateWebhookSubscriptionRequest", "SignedEventRequest", "WebhookSubscription", "WebhookDelivery",
                "Error", "Flow", "OrderIndexRow", "OrderState", "SetClockRequest", "ServiceClock",
                "CreateBatchRequest", "Batch");
        JsonObject start = doc.getAsJsonObject("paths").getAsJsonObject("/api/v1/orders").getAsJsonObject("post");
        assertThat(start.getAsJsonObject("responses").keySet())
                .containsExactlyInAnyOrder("200", "201", "400", "404", "409", "413", "422", "503");
        assertThat(start.getAsJsonArray("parameters").toString()).contains("Idempotency-Key");

        // reading your own writes: the read's ETag, If-None-Match and minVersion; If-Match on the changes it guards
        JsonObject read = paths.getAsJsonObject("/api/v1/orders/{id}").getAsJsonObject("get");
        assertThat(read.getAsJsonArray("parameters").toString()).contains("minVersion", "If-None-Match");
        assertThat(read.getAsJsonObject("responses").keySet()).contains("200", "304", "503");
        assertThat(read.getAsJsonObject("responses").getAsJsonObject("200").getAsJsonObject("headers").keySet())
                .contains("ETag");
        assertThat(read.getAsJsonObject("responses").getAsJsonObject("304").has("content")).isFalse();
        for (String change : List.of("/api/v1/orders/{id}/cancel", "/api/v1/orders/{id}/approvals/{nodeId}")) {
            JsonObject post = paths.getAsJsonObject(change).getAsJsonObject("post");
            assertThat(post.getAsJsonArray("parameters").toString()).as(change).contains("If-Match");
            assertThat(post.getAsJsonObject("responses").keySet()).as(change).contains("412");
        }
    }

    /**
     * The published order schema ({@code OrderState}, the live state of {@code GET /api/v1/orders/{id}}) names exactly
     * the components of {@link OrderView}, the record the processor writes and the gateway reads, and of each record
     * inside it (a node, a run, a wait, a timeline entry, a chat message and its proposal, the rollback, the pinned
     * flow version); an enum's values are the record's wire spellings. The flow's graph is described as an object.
     */
    @Test
    void the_order_schema_names_the_components_of_the_order_view() {
        JsonObject schemas = JsonParser.parseString(document).getAsJsonObject().getAsJsonObject("components")
                .getAsJsonObject("schemas");
        JsonObject getOrder = JsonParser.parseString(document).getAsJsonObject().getAsJsonObject("paths")
                .getAsJsonObject("/api/v1/orders/{id}").getAsJsonObject("get").getAsJsonObject("responses")
                .getAsJsonObject("200").getAsJsonObject("content").getAsJsonObject("application/json")
                .getAsJsonObject("schema");
        List<String> checked = new ArrayList<>();
        agree("OrderView", resolved(getOrder, schemas), OrderView.class, schemas, checked);
        assertThat(checked).contains("OrderView", "OrderView.nodes{}", "OrderView.nodes{}.runs[]", "OrderView.waits[]",
                "OrderView.timeline[]", "OrderView.chat[]", "OrderView.chat[].proposal", "OrderView.rollback",
                "OrderView.flow");
    }

    /**
     * An order's live state as {@code GET /api/v1/orders/{id}} answers it (here the test processor's, made from an
     * {@link OrderView}) validates against the published order schema, its members shown as null included.
     */
    @Test
    void an_order_as_read_validates_against_the_published_order_schema() {
        PROCESSOR.put(new FakeProcessor.FakeOrder("ord_schema", "storefront_order", null, "waiting",
                "payment.received", "approve", 1_700_000_000_000L));
        String body = new String(http.get().uri("/api/v1/orders/ord_schema").exchange().expectStatus().isOk()
                .expectBody().returnResult().getResponseBody());
        assertThat(body).contains("\"reason\":null", "\"assignee\":null", "\"amount\":null");
        assertThat(publishedSchemaValidates("#/components/schemas/OrderState", body)).isTrue();
    }

    @Test
    void a_flow_version_as_read_validates_against_the_published_schema_and_bad_versions_are_refused() {
        String body = new String(http.get().uri("/api/v1/flows/storefront_order/versions/1").exchange()
                .expectStatus().isOk().expectBody().returnResult().getResponseBody());
        assertThat(body).contains("\"version\":1", "\"nodes\":[");
        assertThat(publishedSchemaValidates("#/components/schemas/FlowVersion", body)).isTrue();
        http.get().uri("/api/v1/flows/storefront_order/versions/999").exchange().expectStatus().isNotFound()
                .expectBody().jsonPath("$.error").isEqualTo("Flow storefront_order has no version 999");
        http.get().uri("/api/v1/flows/no_such_flow/versions/1").exchange().expectStatus().isNotFound();
        for (String bad : List.of("0", "two", "1000001", "99999999999")) {
            http.get().uri("/api/v1/flows/storefront_order/versions/" + bad).exchange().expectStatus().isBadRequest();
        }
    }

    /** Records whose schema is an object without described members: the flow's graph (the contract leaves it out). */
    private static final Set<Class<?>> DESCRIBED_AS_AN_OBJECT = Set.of(FlowDefinition.class);

    private static void agree(String where, JsonObject schema, Type type, JsonObject schemas, List<String> checked) {
        Class<?> raw = type instanceof ParameterizedType p ? (Class<?>) p.getRawType() : (Class<?>) type;
        if (List.class.isAssignableFrom(raw)) {
            assertThat(schema.has("items")).as("%s is an array with its items described", where).isTrue();
            agree(where + "[]", resolved(schema.getAsJsonObject("items"), schemas),
                    ((ParameterizedType) type).getActualTypeArguments()[0], schemas, checked);
        } else if (Map.class.isAssignableFrom(raw)) {
            assertThat(schema.has("additionalProperties")).as("%s is a map with its values described", where)
                    .isTrue();
            agree(where + "{}", resolved(schema.getAsJsonObject("additionalProperties"), schemas),
                    ((ParameterizedType) type).getActualTypeArguments()[1], schemas, checked);
        } else if (raw.isEnum()) {
            List<String> wire = new ArrayList<>();
            for (Object constant : raw.getEnumConstants()) {
                wire.add(Json.write(constant).replace("\"", ""));
            }
            List<String> published = new ArrayList<>();
            schema.getAsJsonArray("enum").forEach(value -> published.add(value.getAsString()));
            assertThat(published).as("%s: the values of %s", where, raw.getSimpleName())
                    .containsExactlyInAnyOrderElementsOf(wire);
        } else if (raw.isRecord() && !DESCRIBED_AS_AN_OBJECT.contains(raw)) {
            checked.add(where);
            RecordComponent[] components = raw.getRecordComponents();
            JsonObject properties = schema.getAsJsonObject("properties");
            assertThat(properties).as("%s has its properties described", where).isNotNull();
            assertThat(properties.keySet()).as("%s: the properties of %s", where, raw.getSimpleName())
                    .containsExactlyInAnyOrderElementsOf(Arrays.stream(components).map(RecordComponent::getName)
                            .toList());
            for (RecordComponent component : components) {
                agree(where + "." + component.getName(),
                        resolved(properties.getAsJsonObject(component.getName()), schemas),
                        component.getGenericType(), schemas, checked);
            }
        }
    }

    /** {@code schema}, or the component it refers to. */
    private static JsonObject resolved(JsonObject schema, JsonObject schemas) {
        if (schema.has("$ref")) {
            String ref = schema.get("$ref").getAsString();
            return schemas.getAsJsonObject(ref.substring(ref.lastIndexOf('/') + 1));
        }
        return schema;
    }

    /**
     * The document as published, written to {@code target/openapi/openapi.json}: the {@code api-clients} module
     * generates a Java and a TypeScript client from it, compiles them and drives the running system with the Java one.
     */
    @Test
    void the_published_document_is_written_out_for_the_client_build() throws IOException {
        Path file = Path.of("target", "openapi", "openapi.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, document);
        assertThat(JsonParser.parseString(Files.readString(file)).getAsJsonObject().has("paths")).isTrue();
    }

    @Test
    void swagger_ui_is_served() {
        http.get().uri("/api/v1/docs").exchange().expectStatus().is3xxRedirection();
        http.get().uri("/webjars/swagger-ui/index.html").exchange().expectStatus().isOk();
    }

    /** Validates {@code body} against the request body schema of {@code POST path}, as published. */
    private boolean publishedSchemaAccepts(String path, String body) {
        String templated = path.replace("/ord_agreement", "/{id}").replace("/approve", "/{nodeId}");
        return publishedSchemaValidates("#/paths/" + templated.replace("~", "~0").replace("/", "~1")
                + "/post/requestBody/content/application~1json/schema", body);
    }

    /** Validates {@code body} against the schema at {@code pointer} in the document, as published. */
    private boolean publishedSchemaValidates(String pointer, String body) {
        JsonObject root = JsonParser.parseString(document).getAsJsonObject();
        root.addProperty("$schema", "https://json-schema.org/draft/2020-12/schema");
        root.addProperty("$id", "urn:orderflow:openapi");
        root.addProperty("$ref", pointer);
        Validator.Result result = new ValidatorFactory().withJsonNodeFactory(new GsonNode.Factory())
                .validate(root.toString(), body);
        return result.isValid();
    }

}

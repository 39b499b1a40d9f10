package io.orderflow.dispatcher.deliveries;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.dispatcher.subscriptions.Subscription;
import io.orderflow.schemas.json.Json;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Golden JSON of what the dispatcher stores on its topics: a change to a stored format shows up here. */
class StoredRecordsJsonTest {

    private static final String PAYLOAD = """
            {"id":"dlv_1","event":"order.paid","occurredAt":1795334400000,"orderId":"ord_1","data":{"order":{"id":"ord_1"}}}""";

    @Test
    void subscription() {
        Subscription subscription = new Subscription("whs_1", "https://a.example/h", List.of("order.paid"),
                1795334400000L, "whsec_s");
        String json = """
                {"id":"whs_1","url":"https://a.example/h","events":["order.paid"],"createdAt":1795334400000,\
                "secret":"whsec_s"}""";

        assertThat(Json.write(subscription)).isEqualTo(json);
        assertThat(Json.read(json, Subscription.class)).isEqualTo(subscription);
    }

    @Test
    void rotatedSubscription() {
        Subscription subscription = new Subscription("whs_1", "https://a.example/h", List.of("*"),
                1795334400000L, "whsec_new", "whsec_old", 1795334500000L);
        String json = """
                {"id":"whs_1","url":"https://a.example/h","events":["*"],"createdAt":1795334400000,\
                "secret":"whsec_new","previousSecret":"whsec_old","rotatedAt":1795334500000}""";

        assertThat(Json.write(subscription)).isEqualTo(json);
        assertThat(Json.read(json, Subscription.class)).isEqualTo(subscription);
    }

    @Test
    void pendingAndDeliveredRecords() {
        Delivery pending = new Delivery("dlv_1", "whs_1", "order.paid", "ord_1", Json.MAPPER.readTree(PAYLOAD),
                DeliveryStatus.PENDING, 0, null, null, 1795334400100L, null);
        Delivery delivered = new Delivery("dlv_1", "whs_1", "order.paid", "ord_1", Json.MAPPER.readTree(PAYLOAD),
                DeliveryStatus.DELIVERED, 2, 204, null, 1795334400100L, 1795334410200L);
        String pendingJson = """
                {"id":"dlv_1","subscriptionId":"whs_1","event":"order.paid","orderId":"ord_1","payload":%s,\
                "status":"pending","attempts":0,"createdAt":1795334400100}""".formatted(PAYLOAD);
        String deliveredJson = """
                {"id":"dlv_1","subscriptionId":"whs_1","event":"order.paid","orderId":"ord_1","payload":%s,\
                "status":"delivered","attempts":2,"responseStatus":204,"createdAt":1795334400100,\
                "deliveredAt":1795334410200}""".formatted(PAYLOAD);

        assertThat(Json.write(pending)).isEqualTo(pendingJson);
        assertThat(Json.read(pendingJson, Delivery.class)).isEqualTo(pending);
        assertThat(Json.write(delivered)).isEqualTo(deliveredJson);
        assertThat(Json.read(deliveredJson, Delivery.class)).isEqualTo(delivered);
    }

    @Test
    void failedRecord() {
        Delivery failed = new Delivery("dlv_1", "whs_1", "order.paid", "ord_1", Json.MAPPER.readTree(PAYLOAD),
                DeliveryStatus.FAILED, 6, 503, "HTTP 503", 1795334400100L, null);
        String json = """
                {"id":"dlv_1","subscriptionId":"whs_1","event":"order.paid","orderId":"ord_1","payload":%s,\
                "status":"failed","attempts":6,"responseStatus":503,"lastError":"HTTP 503",\
                "createdAt":1795334400100}""".formatted(PAYLOAD);

        assertThat(Json.write(failed)).isEqualTo(json);
        assertThat(Json.read(json, Delivery.class)).isEqualTo(failed);
    }

    @Test
    void deliveryTask() {
        DeliveryTask task = new DeliveryTask("dlv_1", "whs_1", "order.paid", "ord_1", Json.MAPPER.readTree(PAYLOAD),
                5, 1795334400100L);
        String json = """
                {"deliveryId":"dlv_1","subscriptionId":"whs_1","event":"order.paid","orderId":"ord_1",\
                "payload":%s,"maxRetries":5,"createdAt":1795334400100}""".formatted(PAYLOAD);

        assertThat(Json.write(task)).isEqualTo(json);
        assertThat(Json.read(json, DeliveryTask.class)).isEqualTo(task);
    }
}

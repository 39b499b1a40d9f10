package io.orderflow.gateway;

import io.orderflow.gateway.testing.FakeDispatcher;
import io.orderflow.gateway.testing.FakeProcessor;
import io.orderflow.gateway.testing.FakeQueryApi;
import io.orderflow.gateway.testing.TestFlows;
import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.model.OrderType;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The gateway on a real broker, with test-only stand-ins for the processor (commands on Kafka, queries over HTTP).
 * Every subclass shares one Spring context, one broker and one set of seeded flows.
 */
@SpringBootTest(classes = GatewayApplication.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {"spring.config.name=gateway", "orderflow.gateway.reply-timeout=3s",
                "orderflow.gateway.webhook-secret=" + GatewayIntegrationTest.WEBHOOK_SECRET})
abstract class GatewayIntegrationTest {

    static final String BOOTSTRAP = TestKafka.bootstrapServers();
    static final FakeProcessor PROCESSOR;
    static final FakeQueryApi QUERIES;
    static final FakeDispatcher DISPATCHER = new FakeDispatcher();
    static final String WEBHOOK_SECRET = "inbound-test-secret";

    static {
        TestFlows.publish(BOOTSTRAP,
                TestFlows.flow("storefront_order", OrderType.STOREFRONT_ORDER, 1, 1_000, 3),
                TestFlows.flow("b2b_order", OrderType.B2B_ORDER, 2, 3_000, 5),
                TestFlows.flow("draft_flow", OrderType.REORDER, 0, 2_000, 0));
        PROCESSOR = new FakeProcessor(BOOTSTRAP);
        QUERIES = new FakeQueryApi(PROCESSOR);
    }

    @DynamicPropertySource
    static void settings(DynamicPropertyRegistry registry) {
        registry.add("orderflow.kafka.bootstrap-servers", () -> BOOTSTRAP);
        registry.add("orderflow.gateway.processor-url", QUERIES::url);
        registry.add("orderflow.gateway.dispatcher-url", DISPATCHER::url);
    }

    @LocalServerPort
    int port;

    WebTestClient http;

    @BeforeEach
    void client() {
        http = WebTestClient.bindToServer().baseUrl("http://localhost:" + port)
                .responseTimeout(Duration.ofSeconds(20)).build();
    }

    static String storefrontOrder() {
        return """
                {"flowId": "storefront_order", "input": {"type": "storefront_order", "customerId": "c-1",
                 "lines": [{"sku": "SKU-1", "qty": 2, "unitPrice": 9.5}]}}""";
    }
}

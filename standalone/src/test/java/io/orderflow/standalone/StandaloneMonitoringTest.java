package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * The operators' dashboard and alert rules (standalone/monitoring, used by docker-compose) query only meters that a
 * running system serves: every metric named in the Grafana dashboard's and the Prometheus rules' expressions is in the
 * standalone system's scrape after an order completed and another became an incident.
 */
@ExtendWith(SharedStandalone.class)
class StandaloneMonitoringTest {

    private static final Path DASHBOARD = Path.of("monitoring/grafana/dashboards/orderflow.json");
    private static final Path ALERTS = Path.of("monitoring/prometheus/alerts.yml");
    /** Names in a PromQL expression that are not metrics: functions, aggregations, keywords, Prometheus's own. */
    private static final Set<String> NOT_METRICS = Set.of("sum", "max", "min", "avg", "rate", "increase", "by",
            "without", "and", "or", "unless", "histogram_quantile", "up", "le", "flow", "topic", "status", "source",
            "outcome", "type", "result", "service", "job", "instance", "group", "code", "reason", "delta");
    private static final Pattern NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");

    @Test
    void everyMetricTheDashboardAndTheAlertsQueryIsServed(StandaloneSystem system) throws IOException {
        WebTestClient http = SharedStandalone.client(system);
        completeAnOrderAndRaiseAnIncident(http, system.bootstrapServers());

        Set<String> queried = new LinkedHashSet<>();
        for (String expr : expressions()) {
            queried.addAll(metricNames(expr));
        }
        assertThat(queried).contains("orderflow_orders_started_total", "orderflow_incidents_total",
                "orderflow_orders_duration_seconds_bucket", "orderflow_orders_in_flight", "orderflow_consumer_lag",
                "orderflow_webhook_delivery_lag_seconds_bucket", "orderflow_mail_intake_total",
                "orderflow_chat_turns_total");

        // a whole system's scrape is over a megabyte, past the test client's buffer: read it with the JDK's client
        HttpRequest scrapeRequest = HttpRequest.newBuilder(
                URI.create("http://localhost:" + system.gatewayPort() + "/actuator/prometheus")).build();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            HttpResponse<String> response = HttpClient.newHttpClient().send(scrapeRequest,
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            assertThat(response.statusCode()).isEqualTo(200);
            String scrape = response.body();
            Set<String> served = new LinkedHashSet<>();
            scrape.lines().filter(line -> !line.startsWith("#") && !line.isBlank())
                    .map(line -> line.split("[{ ]", 2)[0]).forEach(served::add);
            assertThat(served).containsAll(queried);
        });
    }

    private static void completeAnOrderAndRaiseAnIncident(WebTestClient http, String bootstrap) {
        String completed = post(http, Map.of("flowId", "storefront_order", "input", Map.of(
                "type", "storefront_order", "customerId", "cus_monitoring", "currency", "USD",
                "lines", List.of(Map.of("sku", "MUG-BLUE", "qty", 1, "unitPrice", 12.5)),
                "meta", Map.of("shipTo", "1 Main Street"))));
        String waiting = post(http, Map.of("flowId", "b2b_order", "input", Map.of(
                "type", "b2b_order", "customerId", "cus_monitoring", "currency", "EUR",
                "lines", List.of(Map.of("sku", "WIDGET-1", "qty", 1, "unitPrice", 20)),
                "meta", Map.of("shipTo", "5 Harbour Road"))));
        await().atMost(Duration.ofSeconds(30)).until(() -> status(http, completed).equals("completed")
                && status(http, waiting).equals("waiting"));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(Topics.RUN_REPORTS.name(), waiting, Json.write(Map.of(
                    "type", "node_detail", "orderId", waiting, "instanceId", waiting + ".1"))));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> status(http, waiting).equals("failed"));
    }

    private static List<String> expressions() throws IOException {
        List<String> exprs = new ArrayList<>();
        JsonNode dashboard = Json.MAPPER.readTree(Files.readString(DASHBOARD));
        dashboard.get("panels").forEach(panel -> panel.get("targets")
                .forEach(target -> exprs.add(target.get("expr").asString())));
        // each rule's expr, on its line or folded onto the lines below it
        Matcher rule = Pattern.compile("expr: (?:>-\\n)?((?:[^\\n]*\\n)(?:\\s{10,}[^\\n]*\\n)*)")
                .matcher(Files.readString(ALERTS));
        while (rule.find()) {
            exprs.add(rule.group(1));
        }
        assertThat(exprs).hasSizeGreaterThanOrEqualTo(10);
        return exprs;
    }

    /** The metric names in a PromQL expression: names that are not functions, keywords, labels or quoted. */
    private static Set<String> metricNames(String expr) {
        String unquoted = expr.replaceAll("\"[^\"]*\"", "\"\"").replaceAll("\\[[^\\]]*\\]", "[]")
                .replaceAll("\\{[^}]*\\}", "{}");
        Set<String> names = new LinkedHashSet<>();
        Matcher m = NAME.matcher(unquoted);
        while (m.find()) {
            String name = m.group();
            if (!NOT_METRICS.contains(name) && name.contains("_")) {
                names.add(name);
            }
        }
        return names;
    }

    private static String post(WebTestClient http, Object body) {
        return Json.MAPPER.readTree(http.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body).exchange().expectStatus().isCreated().expectBody().returnResult()
                .getResponseBody()).get("orderId").asString();
    }

    private static String status(WebTestClient http, String orderId) {
        return Json.MAPPER.readTree(http.get().uri("/api/v1/orders/" + orderId).exchange().expectStatus().isOk()
                .expectBody().returnResult().getResponseBody()).get("status").asString();
    }
}

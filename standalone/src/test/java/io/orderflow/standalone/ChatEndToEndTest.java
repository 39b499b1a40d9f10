package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.schemas.json.Json;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;

/**
 * The ops chat end to end on the standalone system (the real order-processor keeps the chat; no model key is set, so
 * live mode answers with the heuristic): a chat proposes an approval, a second client sees the transcript, the page's
 * confirm decides through {@code decide} with the proposal id, the proposal shows as confirmed, the order completes,
 * a second confirm is refused, and chat still answers on the completed order. The socket pushes the state as GET
 * answers it.
 */
@ExtendWith(SharedStandalone.class)
class ChatEndToEndTest {

    @Test
    void aChatProposalConfirmedOnThePageDecidesTheApproval(StandaloneSystem system) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        String base = "http://localhost:" + system.gatewayPort();
        String order = start(http, base);
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> read(http, base, order).path("waits").path(0).path("nodeId").asString("")
                        .equals("approval"));

        try (OrderSocket page = new OrderSocket(http, base, order);
             OrderSocket other = new OrderSocket(http, base, order)) {
            // the socket pushes the live state as GET answers it (the gateway reads it as an OrderView and writes it
            // again); a change between the push and the read is followed by another push, so they are compared again
            JsonNode pushed = page.state(s -> true);
            JsonNode got = read(http, base, order);
            while (!pushed.equals(got)) {
                pushed = page.state(s -> true);
                got = read(http, base, order);
            }
            assertThat(pushed.path("flow").path("graph").path("nodes").size()).as("the whole graph").isPositive();
            other.state(s -> true);

            JsonNode chat = page.call("chat", "{\"text\": \"approve it\"}");
            assertThat(chat.path("result").path("reply").asString("")).as("%s", chat)
                    .contains("proposal to approve").contains("Approve order " + order);

            JsonNode seen = other.state(s -> s.path("chat").size() == 3);
            assertThat(seen.path("chat").path(0).path("text").asString()).isEqualTo("approve it");
            JsonNode proposal = seen.path("chat").path(1).path("proposal");
            assertThat(proposal.path("kind").asString()).isEqualTo("decide");
            assertThat(proposal.path("status").asString()).isEqualTo("open");
            assertThat(seen.path("waits").size()).as("the chat decided nothing").isEqualTo(1);
            String proposalId = proposal.path("id").asString();

            JsonNode decided = page.call("decide", "{\"nodeId\": \"approval\", \"decision\": \"approved\", "
                    + "\"note\": \"confirmed from the chat\", \"proposalId\": \"" + proposalId + "\"}");
            assertThat(decided.path("result").path("ok").asBoolean()).as("%s", decided).isTrue();

            JsonNode done = other.state(s -> s.path("status").asString("").equals("completed")
                    && s.path("chat").path(1).path("proposal").path("status").asString("").equals("confirmed"));
            assertThat(done.path("nodes").path("approval").path("output").path("note").asString())
                    .isEqualTo("confirmed from the chat");

            assertThat(page.call("decide", "{\"nodeId\": \"approval\", \"decision\": \"approved\", "
                    + "\"proposalId\": \"" + proposalId + "\"}").path("error").asString())
                    .isEqualTo("Proposal " + proposalId + " was already confirmed.");
            assertThat(page.call("chat", "{\"text\": \"status?\"}").path("result").path("reply").asString())
                    .startsWith("Order " + order + " is completed");
        }
    }

    private static String start(HttpClient http, String base) throws Exception {
        String body = "{\"flowId\": \"purchase_request\", \"input\": {\"type\": \"purchase_request\", "
                + "\"customerId\": \"cus_chat_e2e\", \"currency\": \"USD\", "
                + "\"lines\": [{\"sku\": \"LAPTOP-14\", \"qty\": 2}]}}";
        HttpResponse<String> response = http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/orders"))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).as(response.body()).isEqualTo(201);
        return Json.MAPPER.readTree(response.body()).get("orderId").asString();
    }

    private static JsonNode read(HttpClient http, String base, String order) throws Exception {
        return Json.MAPPER.readTree(http.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/orders/" + order))
                .GET().build(), HttpResponse.BodyHandlers.ofString()).body());
    }
}

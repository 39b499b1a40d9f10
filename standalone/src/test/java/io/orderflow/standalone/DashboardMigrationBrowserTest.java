package io.orderflow.standalone;

import static io.orderflow.standalone.DashboardBrowserTest.APPROVER;
import static io.orderflow.standalone.DashboardBrowserTest.OPERATOR;
import static io.orderflow.standalone.DashboardBrowserTest.WAIT;
import static io.orderflow.standalone.DashboardBrowserTest.assertNoSidewaysScrolling;
import static io.orderflow.standalone.DashboardBrowserTest.click;
import static io.orderflow.standalone.DashboardBrowserTest.http;
import static io.orderflow.standalone.DashboardBrowserTest.js;
import static io.orderflow.standalone.DashboardBrowserTest.line;
import static io.orderflow.standalone.DashboardBrowserTest.open;
import static io.orderflow.standalone.DashboardBrowserTest.read;
import static io.orderflow.standalone.DashboardBrowserTest.rowIds;
import static io.orderflow.standalone.DashboardBrowserTest.select;
import static io.orderflow.standalone.DashboardBrowserTest.signedIn;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.KafkaSettings;
import io.orderflow.runner.flows.FlowFiles;
import io.orderflow.runner.flows.FlowPublisher;
import io.orderflow.runner.flows.FlowValidator;
import io.orderflow.runner.nodes.NodeCatalogue;
import io.orderflow.schemas.flows.EdgeDefinition;
import io.orderflow.schemas.flows.FlowDefinition;
import io.orderflow.schemas.flows.NodeDefinition;
import io.orderflow.schemas.json.Json;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.http.MediaType;
import tools.jackson.databind.JsonNode;

/**
 * Migrating orders from the dashboard, on the dashboard tests' shared system: the purchase request flow published as a
 * flow of its own twice, the second version with the manager's approval node renamed. An operator previews and
 * migrates a waiting order from its page and approves it at the renamed node; a preview that would drop the node the
 * order waits at shows the refusal naming it, on a phone without sideways scrolling; a person below operator sees no
 * Migrate; a batch from the orders list migrates the orders it matches.
 */
@ExtendWith(DashboardBrowserTest.OnSharedSystem.class)
class DashboardMigrationBrowserTest {

    private static final String FLOW = "purchase_migration_ui";

    private static int v1;
    private static int v2;

    @BeforeAll
    static void publishTwoVersions() {
        FlowPublisher publisher = new FlowPublisher(new KafkaSettings(DashboardBrowserTest.bootstrapServers()),
                new FlowValidator(NodeCatalogue.standard()), Clock.systemUTC());
        FlowDefinition base = FlowFiles.builtIn("purchase_request");
        v1 = publisher.publish(as(base, id -> id)).publishedVersion();
        v2 = publisher.publish(as(base, id -> id.equals("approval") ? "manager_approval" : id)).publishedVersion();
        await().atMost(WAIT).untilAsserted(() -> http.get().uri("/api/v1/flows").exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.flows[?(@.id == '" + FLOW + "')].publishedVersion").isEqualTo(v2));
    }

    /** The purchase request flow as flow {@value #FLOW}, each node id renamed by {@code rename}. */
    private static FlowDefinition as(FlowDefinition base, UnaryOperator<String> rename) {
        return new FlowDefinition(FLOW, "Purchase request (migration)", base.description(), base.orderType(),
                base.nodes().stream().map(n -> new NodeDefinition(rename.apply(n.id()), n.type(), n.title(),
                        n.settings(), n.retry())).toList(),
                base.edges().stream().map(e -> new EdgeDefinition(e.id(), rename.apply(e.from()),
                        rename.apply(e.to()), e.branch())).toList());
    }

    private static String customer() {
        return "cus_migui" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    }

    /** A purchase request of two laptops started on version 1, waiting at the manager's approval. */
    private static String waitingOnV1(String customer) {
        Map<String, Object> input = Map.of("type", "purchase_request", "customerId", customer, "currency", "USD",
                "lines", List.of(line("LAPTOP-14", 2, null)), "meta", Map.of("shipTo", "HQ"));
        String id = Json.MAPPER.readTree(http.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("flowId", FLOW, "version", v1, "input", input)).exchange()
                .expectStatus().isCreated().expectBody().returnResult().getResponseBody()).get("orderId").asString();
        await().atMost(WAIT).untilAsserted(() -> {
            JsonNode order = read(id);
            assertThat(order.get("status").asString()).isEqualTo("waiting");
            assertThat(order.get("waits").valueStream().map(w -> w.get("nodeId").asString())).contains("approval");
        });
        return id;
    }

    private static WebDriverWait waitOn(WebDriver browser) {
        return DashboardBrowserTest.wait(browser);
    }

    private static String text(WebDriver browser, By locator) {
        return waitOn(browser).until(ExpectedConditions.visibilityOfElementLocated(locator)).getText();
    }

    private static List<JsonNode> migrations(JsonNode order) {
        return order.get("timeline").valueStream().filter(e -> e.get("kind").asString().equals("migrate")).toList();
    }

    @Test
    void an_operator_previews_and_migrates_a_waiting_order_from_its_page_then_approves_it_at_the_renamed_node() {
        String id = waitingOnV1(customer());
        WebDriver browser = signedIn(OPERATOR);
        open(browser, "/orders/" + id);

        click(browser, By.id("migrate-open"));
        select(browser, By.id("migrate-to-approval"), "manager_approval");
        assertThat(browser.findElement(By.id("migrate-to-invoice")).getDomProperty("value"))
                .as("a node both versions have keeps its id").isEqualTo("invoice");
        click(browser, By.id("migrate-preview"));

        assertThat(text(browser, By.id("migrate-preview-result"))).contains("Preview: nothing has changed yet.",
                "The wait for approval moves from approval to manager_approval, its deadline kept");
        assertThat(browser.findElement(By.cssSelector("#migrate-nodes tr.renamed")).getDomAttribute("data-to"))
                .isEqualTo("manager_approval");
        JsonNode previewed = read(id);
        assertThat(previewed.get("flow").get("version").asInt()).as("a preview changes nothing").isEqualTo(v1);
        assertThat(migrations(previewed)).isEmpty();
        DashboardBrowserTest.pageScreenshot(browser, "order-migrate-preview");

        click(browser, By.id("migrate-confirm"));

        waitOn(browser).until(ExpectedConditions.textToBe(By.id("order-flow"), FLOW + " v" + v2));
        String entry = "Migrated from version " + v1 + " to version " + v2 + " of flow " + FLOW + " by " + OPERATOR
                + ": approval → manager_approval";
        waitOn(browser).until(ExpectedConditions.textToBePresentInElementLocated(
                By.cssSelector("#timeline li[data-kind=migrate]"), entry));
        assertThat(text(browser, By.cssSelector("[data-outcome=migrate]")))
                .contains("Migrated to version " + v2 + ": approval → manager_approval.");
        waitOn(browser).until(ExpectedConditions.invisibilityOfElementLocated(By.id("order-migrate")));
        assertThat(migrations(read(id))).singleElement().satisfies(e -> assertThat(e.get("message").asString())
                .isEqualTo(entry));

        click(browser, By.cssSelector("[data-wait=manager_approval] .approve"));
        JsonNode done = await().atMost(WAIT).until(() -> read(id),
                o -> !List.of("queued", "running", "waiting").contains(o.get("status").asString()));
        assertThat(done.get("status").asString()).isEqualTo("completed");
        assertThat(done.get("nodes").get("manager_approval").get("status").asString()).isEqualTo("succeeded");
        waitOn(browser).until(ExpectedConditions.attributeToBe(By.id("order-status"), "data-status", "completed"));
    }

    @Test
    void a_preview_that_drops_the_node_the_order_waits_at_shows_the_refusal_naming_it_on_a_phone() {
        String id = waitingOnV1(customer());
        WebDriver browser = signedIn(OPERATOR);
        browser.manage().window().setSize(new Dimension(375, 812));
        open(browser, "/orders/" + id);

        click(browser, By.id("migrate-open"));
        waitOn(browser).until(ExpectedConditions.presenceOfElementLocated(By.id("migrate-to-approval")));
        assertThat(browser.findElement(By.id("migrate-to-approval")).getDomProperty("value"))
                .as("a node the new version lacks is not kept until mapped").isEmpty();
        assertThat(browser.findElement(By.cssSelector("#migrate-mapping tr[data-node=approval]")).getText())
                .contains("the order is here");
        click(browser, By.id("migrate-preview"));

        assertThat(text(browser, By.id("migrate-problem"))).isEqualTo("Order " + id + " stands at node approval, "
                + "which version " + v2 + " of flow " + FLOW + " does not have and the mapping does not move; map "
                + "approval to a node of the same type");
        assertThat(browser.findElements(By.id("migrate-confirm"))).as("nothing to confirm").isEmpty();
        assertNoSidewaysScrolling(browser, "the order page with the refused preview");
        assertThat(((Number) js(browser, "const box = document.getElementById('migrate-mapping').parentElement; "
                + "return box.scrollWidth - box.clientWidth")).intValue()).as("the mapping fits its panel")
                .isLessThanOrEqualTo(0);
        js(browser, "document.getElementById('migrate-problem').scrollIntoView({ block: 'center' })");
        DashboardBrowserTest.pageScreenshot(browser, "order-migrate-refused-phone");
        JsonNode after = read(id);
        assertThat(after.get("flow").get("version").asInt()).isEqualTo(v1);
        assertThat(after.get("status").asString()).isEqualTo("waiting");
        assertThat(migrations(after)).isEmpty();
    }

    @Test
    void a_person_below_operator_sees_no_migrate_action() {
        String id = waitingOnV1(customer());
        WebDriver browser = signedIn(APPROVER);
        open(browser, "/orders/" + id);

        waitOn(browser).until(ExpectedConditions.elementToBeClickable(By.cssSelector("[data-wait=approval] .approve")));
        assertThat(browser.findElements(By.id("order-migrate"))).isEmpty();
        assertThat(browser.findElement(By.tagName("main")).getText()).doesNotContain("Migrate");
    }

    @Test
    void a_batch_from_the_orders_list_migrates_the_orders_the_filters_match() {
        String customer = customer();
        List<String> orders = List.of(waitingOnV1(customer), waitingOnV1(customer));
        WebDriver browser = signedIn(OPERATOR);
        open(browser, "/orders?status=waiting&q=" + customer);
        waitOn(browser).until(d -> rowIds(d).size() == orders.size());

        click(browser, By.id("batch-act-filter"));
        select(browser, By.id("batch-action"), "migrate");
        select(browser, By.id("batch-flow"), FLOW);
        select(browser, By.id("batch-version"), String.valueOf(v2));
        browser.findElement(By.cssSelector(".batch-map-from")).sendKeys("approval");
        browser.findElement(By.id("batch-review")).click();
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("batch-problem"),
                "Each renamed node needs its old id and its new id."));
        browser.findElement(By.cssSelector(".batch-map-to")).sendKeys("manager_approval");
        browser.findElement(By.id("batch-review")).click();
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("batch-confirm-text"), "Migrate 2 orders to version "
                + v2 + " of flow " + FLOW + " (approval → manager_approval)?"));
        click(browser, By.id("batch-confirm"));

        waitOn(browser).until(ExpectedConditions.urlMatches("/batches/bat_[0-9a-f]{16}$"));
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("batch-state"), "completed"));
        assertThat(browser.findElement(By.id("batch-done")).getText()).isEqualTo("2");
        assertThat(browser.findElement(By.id("batch-action-text")).getText())
                .isEqualTo("Migrate to version " + v2 + " of " + FLOW + ": approval → manager_approval");
        for (String id : orders) {
            JsonNode order = read(id);
            assertThat(order.get("flow").get("version").asInt()).as(id).isEqualTo(v2);
            assertThat(order.get("waits").get(0).get("nodeId").asString()).isEqualTo("manager_approval");
        }
    }
}

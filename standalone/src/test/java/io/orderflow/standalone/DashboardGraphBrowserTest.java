package io.orderflow.standalone;

import static io.orderflow.standalone.DashboardBrowserTest.APPROVER;
import static io.orderflow.standalone.DashboardBrowserTest.OPERATOR;
import static io.orderflow.standalone.DashboardBrowserTest.VIEWER;
import static io.orderflow.standalone.DashboardBrowserTest.WAIT;
import static io.orderflow.standalone.DashboardBrowserTest.assertNoSidewaysScrolling;
import static io.orderflow.standalone.DashboardBrowserTest.http;
import static io.orderflow.standalone.DashboardBrowserTest.js;
import static io.orderflow.standalone.DashboardBrowserTest.line;
import static io.orderflow.standalone.DashboardBrowserTest.open;
import static io.orderflow.standalone.DashboardBrowserTest.pageScreenshot;
import static io.orderflow.standalone.DashboardBrowserTest.read;
import static io.orderflow.standalone.DashboardBrowserTest.signedIn;
import static io.orderflow.standalone.DashboardBrowserTest.start;
import static io.orderflow.standalone.DashboardBrowserTest.waitingForApproval;
import static io.orderflow.standalone.DashboardBrowserTest.waitingForPayment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.schemas.json.Json;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.http.MediaType;
import tools.jackson.databind.JsonNode;

/**
 * The order page's flow graph in Chromium, on a standalone system set up as {@link DashboardBrowserTest}'s: what each
 * node is drawn as on seeded flows that completed, failed, rolled back, were cancelled or wait on one branch (a node
 * that can no longer run never reads pending, a failure path's End looks like a failure); its text size and fit on a
 * desktop; on a phone the decision before the flow, the flow as a list of steps, and the first orders on the first
 * screen.
 */
@ExtendWith(DashboardBrowserTest.OnSharedSystem.class)
class DashboardGraphBrowserTest {

    /**
     * The orders the tests read once they have ended, started together before the first test: each takes its own
     * time to end (a carrier down is retried with backoff, then rolled back), so they run side by side rather than one
     * after another while the tests wait.
     */
    private static String outOfStockRefundFailed;
    private static String carrierDown;
    private static String completed;

    /** The fills of the page's state colours, as Chromium computes them. */
    private static final String SUCCEEDED_FILL = "rgb(214, 245, 221)";
    private static final String FAILED_FILL = "rgb(252, 217, 217)";

    private static WebDriverWait waitOn(WebDriver browser) {
        return DashboardBrowserTest.wait(browser);
    }

    /** Each node as drawn: id → { status, path, outcome, fill, text }, read in one script. */
    private static JsonNode drawn(WebDriver browser) {
        return Json.MAPPER.readTree(String.valueOf(js(browser, """
                const nodes = {};
                document.querySelectorAll('svg.graph .node').forEach((g) => {
                  nodes[g.dataset.node] = { status: g.dataset.status, path: g.dataset.path || null,
                    outcome: g.dataset.outcome || null, fill: getComputedStyle(g.querySelector('rect')).fill,
                    text: g.querySelector('.node-status').textContent };
                });
                const edges = {};
                document.querySelectorAll('svg.graph .edge').forEach((g) => { edges[g.dataset.edge] = g.getAttribute('class'); });
                return JSON.stringify({ nodes, edges });""")));
    }

    private static JsonNode openEnded(WebDriver browser, String orderId, String status) {
        open(browser, "/orders/" + orderId);
        waitOn(browser).until(ExpectedConditions.attributeToBe(By.id("order-status"), "data-status", status));
        waitOn(browser).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("svg.graph .node")));
        return drawn(browser);
    }

    private static List<String> statuses(JsonNode drawn) {
        return drawn.get("nodes").properties().stream().map(e -> e.getValue().get("status").asString()).toList();
    }

    private static String status(JsonNode drawn, String node) {
        return drawn.get("nodes").get(node).get("status").asString();
    }

    private static String orderWith(String flow, List<String> simulate) {
        return start(flow, Map.of("lines", List.of(line("TSHIRT-RED-M", 2, 19.5)),
                "meta", Map.of("shipTo", "1 Main Street, Springfield", "simulate", simulate)));
    }

    private static void awaitStatus(String orderId, String status) {
        await().atMost(WAIT.multipliedBy(2)).until(() -> read(orderId).get("status").asString().equals(status));
    }

    @BeforeAll
    static void startTheOrdersThatTakeAWhile() {
        outOfStockRefundFailed = orderWith("storefront_order", List.of("out_of_stock", "refund_failed"));
        carrierDown = orderWith("storefront_order", List.of("carrier_down"));
        completed = start("storefront_order", Map.of("lines", List.of(line("TSHIRT-RED-M", 2, 19.5)),
                "meta", Map.of("shipTo", "1 Main Street, Springfield")));
    }

    @Test
    void a_storefront_order_that_ran_out_of_stock_and_failed_its_refund_is_drawn_as_a_failure() {
        String orderId = outOfStockRefundFailed;
        awaitStatus(orderId, "failed");
        WebDriver browser = signedIn(VIEWER);
        browser.manage().window().setSize(new Dimension(1280, 1400));
        JsonNode drawn = openEnded(browser, orderId, "failed");

        JsonNode end = drawn.get("nodes").get("refund_failed");
        assertThat(end.get("status").asString()).isEqualTo("ended");
        assertThat(end.get("outcome").asString()).isEqualTo("failed");
        assertThat(end.get("path").asString()).isEqualTo("failure");
        assertThat(end.get("fill").asString()).as("the failed End looks like a failure").isEqualTo(FAILED_FILL);
        assertThat(end.get("text").asString()).isEqualTo("ended · failed");
        for (String node : List.of("reserve", "refund")) {
            assertThat(drawn.get("nodes").get(node).get("path").asString()).as(node).isEqualTo("failure");
            assertThat(drawn.get("nodes").get(node).get("fill").asString()).as(node).isNotEqualTo(SUCCEEDED_FILL);
        }
        assertThat(drawn.get("nodes").get("reserve").get("text").asString()).isEqualTo("succeeded · out of stock");
        assertThat(drawn.get("nodes").get("charge").get("fill").asString()).isEqualTo(SUCCEEDED_FILL);
        for (String node : List.of("ship", "invoice", "completed", "declined", "refunded")) {
            assertThat(status(drawn, node)).as(node).isEqualTo("skipped");
            assertThat(drawn.get("nodes").get(node).get("text").asString()).as(node).isEqualTo("skipped · not taken");
        }
        assertThat(drawn.get("edges").get("e10").asString()).contains("active", "failure");
        assertThat(statuses(drawn)).doesNotContain("pending");
        pageScreenshot(browser, "order-failed");
    }

    @Test
    void a_rolled_back_order_draws_the_nodes_it_never_reached_as_not_reached() {
        String orderId = carrierDown;
        awaitStatus(orderId, "rolled_back");
        WebDriver browser = signedIn(VIEWER);
        JsonNode drawn = openEnded(browser, orderId, "rolled_back");

        assertThat(status(drawn, "ship")).isEqualTo("failed");
        assertThat(status(drawn, "charge")).isEqualTo("rolled_back");
        for (String node : List.of("invoice", "completed")) {
            assertThat(status(drawn, node)).as(node).isEqualTo("not_reached");
            assertThat(drawn.get("nodes").get(node).get("text").asString()).as(node).isEqualTo("not reached");
        }
        for (String node : List.of("refund", "refunded", "refund_failed", "declined")) {
            assertThat(status(drawn, node)).as(node).isEqualTo("skipped");
        }
        assertThat(statuses(drawn)).doesNotContain("pending");
        drawn.get("edges").properties().forEach(e -> assertThat(e.getValue().asString()).as(e.getKey())
                .doesNotContain("pending"));
    }

    @Test
    void a_completed_order_ends_green_and_a_cancelled_one_is_cut_short() {
        awaitStatus(completed, "completed");
        String cancelled = waitingForApproval();
        http.post().uri("/api/v1/orders/" + cancelled + "/cancel").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"reason\": \"Duplicate\"}").exchange().expectStatus().isOk();
        WebDriver browser = signedIn(VIEWER);

        JsonNode done = openEnded(browser, completed, "completed");
        JsonNode end = done.get("nodes").get("completed");
        assertThat(end.get("status").asString()).isEqualTo("ended");
        assertThat(end.get("outcome").asString()).isEqualTo("completed");
        assertThat(end.get("fill").asString()).isEqualTo(SUCCEEDED_FILL);
        assertThat(done.get("nodes").get("ship").get("path").isNull()).isTrue();
        assertThat(status(done, "refund")).isEqualTo("skipped");
        assertThat(status(done, "refund_failed")).isEqualTo("skipped");

        JsonNode cut = openEnded(browser, cancelled, "cancelled");
        assertThat(status(cut, "approval")).isEqualTo("skipped");
        for (String node : List.of("director", "reserve", "invoice", "completed", "rejected", "no_decision")) {
            assertThat(status(cut, node)).as(node).isEqualTo("not_reached");
        }
        assertThat(status(cut, "policy_failed")).as("policy passed").isEqualTo("skipped");
        assertThat(statuses(cut)).doesNotContain("pending", "waiting");
    }

    @Test
    void an_order_waiting_on_one_branch_draws_the_branch_not_taken_as_skipped_and_what_can_still_run_pending() {
        String orderId = waitingForPayment();
        WebDriver browser = signedIn(VIEWER);
        open(browser, "/orders/" + orderId);
        waitOn(browser).until(ExpectedConditions.attributeToBe(By.cssSelector("svg.graph .node[data-node=await_payment]"),
                "data-status", "waiting"));
        JsonNode drawn = drawn(browser);
        for (String node : List.of("override", "credit_refused", "empty")) {
            assertThat(status(drawn, node)).as(node).isEqualTo("skipped");
            assertThat(drawn.get("nodes").get(node).get("text").asString()).as(node).isEqualTo("skipped · not taken");
        }
        for (String node : List.of("capture", "ship", "completed", "unpaid", "declined")) {
            assertThat(status(drawn, node)).as(node).isEqualTo("pending");
        }
        assertThat(status(drawn, "credit")).isEqualTo("succeeded");
        assertThat(drawn.get("nodes").get("credit").get("path").isNull()).as("credit passed").isTrue();
    }

    @Test
    void on_a_desktop_the_graph_text_is_at_least_11_px_fits_its_boxes_and_zooms() {
        String b2b = waitingForPayment();
        String request = waitingForApproval();
        WebDriver browser = signedIn(OPERATOR);
        browser.manage().window().setSize(new Dimension(1366, 900));
        for (String orderId : List.of(request, b2b)) {
            open(browser, "/orders/" + orderId);
            waitOn(browser).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("svg.graph .node")));
            assertThat(smallestText(browser)).as("the smallest text of %s's graph, in px", orderId)
                    .isGreaterThanOrEqualTo(11);
            assertThat(overflowingTexts(browser)).as("texts wider than their node").isEmpty();
        }
        // b2b: commerce.capture_payment's node keeps its text inside its box
        assertThat(browser.findElement(By.cssSelector("svg.graph .node[data-node=capture] .node-status")).getText())
                .isEqualTo("pending");
        double before = smallestText(browser);
        browser.findElement(By.id("zoom-in")).click();
        waitOn(browser).until(ExpectedConditions.attributeToBe(By.cssSelector("svg.graph"), "data-zoom", "1.25"));
        assertThat(smallestText(browser)).isGreaterThan(before);
        assertThat(browser.findElement(By.id("zoom-level")).getText()).isEqualTo("125 %");
        pageScreenshot(browser, "order-graph");
    }

    @Test
    void on_a_phone_the_decision_comes_before_the_flow_which_is_a_list_of_steps() {
        String orderId = waitingForApproval();
        WebDriver browser = signedIn(APPROVER);
        browser.manage().window().setSize(new Dimension(375, 812));
        open(browser, "/orders/" + orderId);
        WebElement approve = waitOn(browser).until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("[data-wait=approval] .approve")));
        int screen = ((Number) js(browser, "return window.innerHeight;")).intValue();
        assertThat(approve.getRect().getY() + approve.getRect().getHeight()).as("Approve on the first screen")
                .isLessThanOrEqualTo(screen);
        assertThat(approve.getRect().getY()).isLessThan(browser.findElement(By.id("flow-panel")).getRect().getY());

        List<WebElement> steps = browser.findElements(By.cssSelector("#steps li[data-node]"));
        assertThat(steps).hasSize(read(orderId).get("flow").get("graph").get("nodes").size());
        assertThat(browser.findElement(By.cssSelector("#steps li[data-node=approval]")).getDomAttribute("data-status"))
                .isEqualTo("waiting");
        assertThat(((Number) js(browser, "return Math.min(...[...document.querySelectorAll('#steps span')]"
                + ".map((s) => parseFloat(getComputedStyle(s).fontSize)));")).doubleValue()).isGreaterThanOrEqualTo(12);
        assertNoSidewaysScrolling(browser, "the order page with its steps");
        pageScreenshot(browser, "order-steps-phone");

        browser.findElement(By.cssSelector("#steps li[data-node=policy] button")).click();
        waitOn(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("node-details"), "Output"));
        // the drawing is still there, at a size its text can be read, in a box that pans
        browser.findElement(By.id("view-drawing")).click();
        waitOn(browser).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#graph-wrap svg.graph")));
        assertThat(smallestText(browser)).isGreaterThanOrEqualTo(11);
        assertNoSidewaysScrolling(browser, "the order page with the drawing");
    }

    @Test
    void on_a_phone_the_first_orders_are_on_the_first_screen_below_a_compact_header() {
        String orderId = waitingForApproval();
        WebDriver browser = signedIn(OPERATOR);
        browser.manage().window().setSize(new Dimension(375, 812));
        open(browser, "/orders");
        WebElement row = waitOn(browser).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-order]")));
        int screen = ((Number) js(browser, "return window.innerHeight;")).intValue();
        assertThat(row.getRect().getY()).as("the first order starts on the first screen").isLessThan(screen * 6 / 10);
        assertThat(browser.findElement(By.cssSelector("header.top")).getRect().getHeight()).as("header height")
                .isLessThanOrEqualTo(100);
        // "Waiting on" names the wait, not the order's id again
        assertThat(browser.findElement(By.cssSelector("tr[data-order='" + orderId + "'] td.waiting-on")).getText())
                .isEqualTo("Approve order");
        // the filters are one tap away
        browser.findElement(By.cssSelector("#filters > summary")).click();
        waitOn(browser).until(ExpectedConditions.visibilityOfElementLocated(By.id("filter-q"))).sendKeys(orderId);
        waitOn(browser).until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("tr[data-order]"), 1));
        pageScreenshot(browser, "orders-phone");
    }

    /** The smallest text of the graph as drawn on screen, in CSS px (its font size times the drawing's scale). */
    private static double smallestText(WebDriver browser) {
        return ((Number) js(browser, """
                const svg = document.querySelector('svg.graph');
                const scale = svg.getScreenCTM().a;
                return Math.min(...[...svg.querySelectorAll('text')]
                  .map((t) => parseFloat(getComputedStyle(t).fontSize) * scale));""")).doubleValue();
    }

    /** The texts of the graph's nodes that are wider than their box (less its margins). */
    @SuppressWarnings("unchecked")
    private static List<String> overflowingTexts(WebDriver browser) {
        return List.copyOf((List<String>) js(browser, """
                return [...document.querySelectorAll('svg.graph .node')].flatMap((g) => {
                  const width = g.querySelector('rect').width.baseVal.value;
                  return [...g.querySelectorAll('text')].filter((t) => t.getComputedTextLength() > width - 8)
                    .map((t) => g.dataset.node + ': ' + t.textContent);
                });"""));
    }
}

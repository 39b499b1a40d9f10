package io.orderflow.standalone;

import static io.orderflow.standalone.DashboardBrowserTest.OPERATOR;
import static io.orderflow.standalone.DashboardBrowserTest.WAIT;
import static io.orderflow.standalone.DashboardBrowserTest.line;
import static io.orderflow.standalone.DashboardBrowserTest.open;
import static io.orderflow.standalone.DashboardBrowserTest.read;
import static io.orderflow.standalone.DashboardBrowserTest.rowIds;
import static io.orderflow.standalone.DashboardBrowserTest.signedIn;
import static io.orderflow.standalone.DashboardBrowserTest.start;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;
import tools.jackson.databind.JsonNode;

/**
 * Batch operations in Chromium, on the dashboard tests' shared system: an operator acts on every order the list's
 * filters match, confirms with the count and watches the batch complete; ticks orders on the list and decides their
 * approvals in one batch; stops a slow batch from its page.
 */
@ExtendWith(DashboardBrowserTest.OnSharedSystem.class)
class DashboardBatchesBrowserTest {

    private static WebDriverWait waitOn(WebDriver browser) {
        return DashboardBrowserTest.wait(browser);
    }

    /** Purchase requests of a customer of their own, each waiting at its manager's approval (node "approval"). */
    private static List<String> waitingFor(String customer, int count) {
        List<String> orders = IntStream.range(0, count).mapToObj(i -> start("purchase_request", Map.of(
                "customerId", customer, "lines", List.of(line("LAPTOP-14", 2, null)),
                "meta", Map.of("shipTo", "HQ")))).toList();
        await().atMost(WAIT).until(() -> orders.stream().allMatch(id -> read(id).get("waits").size() == 1));
        return orders;
    }

    private static String customer() {
        return "cus_ui" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
    }

    /** The orders list filtered to a customer's waiting orders, once it shows all of them. */
    private static void listOf(WebDriver browser, String customer, List<String> orders) {
        open(browser, "/orders?status=waiting&q=" + customer);
        waitOn(browser).until(d -> rowIds(d).size() == orders.size());
        assertThat(rowIds(browser)).containsExactlyInAnyOrderElementsOf(orders);
    }

    private static String batchIdFrom(WebDriver browser) {
        waitOn(browser).until(ExpectedConditions.urlMatches("/batches/bat_[0-9a-f]{16}$"));
        String url = browser.getCurrentUrl();
        return url.substring(url.lastIndexOf('/') + 1);
    }

    private static List<String> messages(String orderId, String kind) {
        return read(orderId).get("timeline").valueStream().filter(e -> e.get("kind").asString().equals(kind))
                .map(e -> e.get("message").asString()).toList();
    }

    @Test
    void an_operator_cancels_every_order_the_filters_match_confirms_the_count_and_watches_it_complete() {
        String customer = customer();
        List<String> orders = waitingFor(customer, 3);
        WebDriver browser = signedIn(OPERATOR);
        listOf(browser, customer, orders);

        waitOn(browser).until(ExpectedConditions.textToBe(By.id("batch-act-filter"),
                "Act on all 3 orders the filters match"));
        browser.findElement(By.id("batch-act-filter")).click();
        new Select(browser.findElement(By.id("batch-action"))).selectByValue("cancel");
        browser.findElement(By.id("batch-review")).click();
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("batch-problem"), "A cancel needs a reason."));
        browser.findElement(By.id("batch-reason")).sendKeys("Budget frozen");
        browser.findElement(By.id("batch-review")).click();
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("batch-confirm-text"),
                "Cancel 3 orders for “Budget frozen”?"));
        DashboardBrowserTest.pageScreenshot(browser, "orders-batch-confirm");
        assertThat(orders).as("nothing is sent before the confirmation")
                .allSatisfy(id -> assertThat(read(id).get("status").asString()).isEqualTo("waiting"));
        browser.findElement(By.id("batch-confirm")).click();

        String batch = batchIdFrom(browser);
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("batch-state"), "completed"));
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("batch-matched"), "3"));
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("batch-done"), "3"));
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("batch-failed"), "0"));
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("batch-progress-text"), "3 of 3 · 3 done · 0 failed"));
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("batch-action-text"), "Cancel: Budget frozen"));
        assertThat(browser.findElements(By.id("batch-stop"))).as("no Stop once it completed").isEmpty();
        DashboardBrowserTest.pageScreenshot(browser, "batch");
        for (String id : orders) {
            JsonNode order = read(id);
            assertThat(order.get("status").asString()).isEqualTo("cancelled");
            assertThat(messages(id, "cancel")).containsExactly("Cancelled by batch " + batch + ": Budget frozen");
            assertThat(order.get("timeline").valueStream().filter(e -> e.get("kind").asString().equals("cancel"))
                    .findFirst().orElseThrow().get("data").get("by").asString()).isEqualTo(OPERATOR);
        }

        // the Batches page lists it
        open(browser, "/batches");
        By row = By.cssSelector("tr[data-batch='" + batch + "']");
        waitOn(browser).until(ExpectedConditions.attributeToBe(row, "data-state", "completed"));
        assertThat(browser.findElement(row).getText()).contains("Cancel: Budget frozen", OPERATOR);
    }

    @Test
    void an_operator_ticks_orders_on_the_list_and_decides_their_approvals_in_one_batch() {
        String customer = customer();
        List<String> orders = waitingFor(customer, 3);
        List<String> ticked = orders.subList(0, 2);
        WebDriver browser = signedIn(OPERATOR);
        listOf(browser, customer, orders);

        for (String id : ticked) {
            browser.findElement(By.cssSelector("tr[data-order='" + id + "'] input.select-order")).click();
        }
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("batch-selected-count"), "2 orders ticked"));
        browser.findElement(By.id("batch-act-selected")).click();
        new Select(waitOn(browser).until(ExpectedConditions.elementToBeClickable(By.id("batch-action"))))
                .selectByValue("decide_approval");
        browser.findElement(By.id("batch-node")).sendKeys("approval");
        new Select(browser.findElement(By.id("batch-decision"))).selectByValue("approved");
        browser.findElement(By.id("batch-note")).sendKeys("budgeted");
        browser.findElement(By.id("batch-review")).click();
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("batch-confirm-text"),
                "Approve the pending approval at approval of 2 orders?"));
        browser.findElement(By.id("batch-confirm")).click();

        String batch = batchIdFrom(browser);
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("batch-state"), "completed"));
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("batch-done"), "2"));
        for (String id : ticked) {
            await().atMost(WAIT).untilAsserted(() -> assertThat(messages(id, "close:approval")).containsExactly(
                    "Approve order " + id + ": approved by " + OPERATOR + ", note: budgeted (batch " + batch + ")"));
        }
        String unticked = orders.get(2);
        assertThat(read(unticked).get("waits").size()).as("the order not ticked still waits").isEqualTo(1);
        assertThat(messages(unticked, "close:approval")).isEmpty();
    }

    @Test
    void an_operator_stops_a_slow_batch_from_its_page_and_what_it_did_stays_done() {
        String customer = customer();
        List<String> orders = waitingFor(customer, 5);
        WebDriver browser = signedIn(OPERATOR);
        listOf(browser, customer, orders);

        browser.findElement(By.id("select-page")).click();
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("batch-selected-count"), "5 orders ticked"));
        browser.findElement(By.id("batch-act-selected")).click();
        waitOn(browser).until(ExpectedConditions.elementToBeClickable(By.id("batch-reason"))).sendKeys("Wrong supplier");
        browser.findElement(By.id("batch-rate")).sendKeys("1");
        browser.findElement(By.id("batch-review")).click();
        DashboardBrowserTest.click(browser, By.id("batch-confirm"));

        batchIdFrom(browser);
        waitOn(browser).until(d -> Integer.parseInt(d.findElement(By.id("batch-done")).getText()) >= 1);
        DashboardBrowserTest.click(browser, By.id("batch-stop"));
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("batch-state"), "stopped"));
        // read inside a wait: the batch page redraws on its refresh
        int done = waitOn(browser).until(d -> Integer.parseInt(d.findElement(By.id("batch-done")).getText()));
        assertThat(done).isBetween(1, orders.size() - 1);
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("batch-page-status"),
                "Stopped: it acts on no more orders."));
        await().during(java.time.Duration.ofSeconds(2)).atMost(WAIT).until(() ->
                orders.stream().filter(id -> read(id).get("status").asString().equals("cancelled")).count() == done);
    }
}

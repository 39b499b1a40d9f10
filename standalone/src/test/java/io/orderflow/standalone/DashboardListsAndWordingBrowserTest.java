package io.orderflow.standalone;

import static io.orderflow.standalone.DashboardBrowserTest.APPROVER;
import static io.orderflow.standalone.DashboardBrowserTest.OPERATOR;
import static io.orderflow.standalone.DashboardBrowserTest.VIEWER;
import static io.orderflow.standalone.DashboardBrowserTest.WAIT;
import static io.orderflow.standalone.DashboardBrowserTest.http;
import static io.orderflow.standalone.DashboardBrowserTest.js;
import static io.orderflow.standalone.DashboardBrowserTest.line;
import static io.orderflow.standalone.DashboardBrowserTest.onEveryDocument;
import static io.orderflow.standalone.DashboardBrowserTest.open;
import static io.orderflow.standalone.DashboardBrowserTest.read;
import static io.orderflow.standalone.DashboardBrowserTest.rowIds;
import static io.orderflow.standalone.DashboardBrowserTest.signedIn;
import static io.orderflow.standalone.DashboardBrowserTest.start;
import static io.orderflow.standalone.DashboardBrowserTest.waitingForApproval;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.schemas.json.Json;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.http.MediaType;
import tools.jackson.databind.JsonNode;

/**
 * The dashboard's small things that confused its users, in Chromium on the dashboard tests' shared system: the ops
 * chat's answer to a viewer who asks to cancel, the start form's word for an empty SKU, the approval's decider said
 * once, the orders list sorted by change saying when it moved while paging, and the list pages pushed a change made
 * elsewhere.
 */
@ExtendWith(DashboardBrowserTest.OnSharedSystem.class)
class DashboardListsAndWordingBrowserTest {

    /** How soon a list page shows a change made elsewhere (its timers refresh every 5 and 10 s). */
    private static final Duration PUSHED = Duration.ofMillis(1_500);

    private static WebDriverWait waitOn(WebDriver browser) {
        return DashboardBrowserTest.wait(browser);
    }

    /** A B2B order of {@code customer} waiting for {@code payment.received}. */
    private static String waitingForPayment(String customer) {
        String orderId = start("b2b_order", Map.of("customerId", customer,
                "lines", List.of(line("WIDGET-1", 4, null)), "meta", Map.of("shipTo", "9 Quay Street, Galway")));
        await().atMost(WAIT).until(() -> read(orderId).get("waits").size() == 1);
        return orderId;
    }

    @Test
    void the_chat_tells_a_viewer_who_asks_to_cancel_that_they_may_not_and_proposes_nothing() {
        String orderId = waitingForPayment("cus_chat_viewer");
        WebDriver viewer = signedIn(VIEWER);
        open(viewer, "/orders/" + orderId);
        waitOn(viewer).until(ExpectedConditions.elementToBeClickable(By.id("chat-text"))).sendKeys("cancel this order");
        viewer.findElement(By.id("chat-send")).click();
        waitOn(viewer).until(ExpectedConditions.textToBePresentInElementLocated(By.id("chat-log"),
                "You may not cancel this order"));
        String chat = viewer.findElement(By.id("chat-log")).getText();
        assertThat(chat).contains("This needs the Operator role.").doesNotContain("Confirm it");
        assertThat(viewer.findElements(By.cssSelector("[data-proposal]"))).isEmpty();
        assertThat(read(orderId).get("chat").valueStream().filter(m -> m.hasNonNull("proposal"))).isEmpty();
        assertThat(read(orderId).get("status").asString()).isEqualTo("waiting");
    }

    @Test
    void an_empty_sku_is_refused_as_the_field_is_left_in_the_apis_words() {
        WebDriver browser = signedIn(OPERATOR);
        open(browser, "/orders/new?flow=b2b_order");
        // into the SKU and out again without typing: no change event, still an empty SKU
        DashboardBrowserTest.click(browser, By.id("start-line-0-sku"));
        browser.findElement(By.id("start-ship-to")).click();
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("start-line-0-sku-error"), "must not be empty"));
        assertThat(browser.findElement(By.id("start-line-0-sku")).getDomAttribute("aria-invalid")).isEqualTo("true");

        JsonNode refused = Json.MAPPER.readTree(http.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("flowId", "b2b_order", "input", Map.of("type", "b2b_order", "currency", "USD",
                        "lines", List.of(Map.of("sku", "", "qty", 1)))))
                .exchange().expectStatus().isBadRequest().expectBody().returnResult().getResponseBody());
        assertThat(refused.get("issues")).singleElement().satisfies(issue -> {
            assertThat(issue.get("path").asString()).isEqualTo("/input/lines/0/sku");
            assertThat(issue.get("message").asString()).as("the API's words are the form's")
                    .isEqualTo("must not be empty");
        });
    }

    @Test
    void the_approvals_decider_is_shown_once_next_to_the_approval_and_once_in_the_timeline() {
        String orderId = waitingForApproval();
        http.post().uri("/api/v1/orders/" + orderId + "/approvals/approval").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("decision", "approved", "by", "dora@example.com", "note", "fits the budget"))
                .exchange().expectStatus().is2xxSuccessful();
        await().atMost(WAIT).until(() -> read(orderId).get("status").asString().equals("completed"));

        WebDriver browser = signedIn(VIEWER);
        open(browser, "/orders/" + orderId);
        By decision = By.cssSelector("[data-decision=approval]");
        waitOn(browser).until(ExpectedConditions.visibilityOfElementLocated(decision));
        assertThat(browser.findElement(decision).getText()).contains("Approved by dora@example.com, ")
                .contains("ago)").endsWith(", note: fits the budget");
        waitOn(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("timeline"), "Order completed"));
        String timeline = browser.findElement(By.id("timeline")).getText();
        Matcher mentions = Pattern.compile("dora@example\\.com").matcher(timeline);
        int count = 0;
        while (mentions.find()) {
            count++;
        }
        assertThat(count).as("the decider in the timeline:%n%s", timeline).isEqualTo(1);
        assertThat(timeline).contains("approved by dora@example.com, note: fits the budget");
    }

    @Test
    void sorted_by_change_a_later_page_says_when_the_list_moved_and_reloads_from_the_first() {
        String customer = "cus_moving_" + System.nanoTime();
        String oldest = waitingForPayment(customer);
        String middle = waitingForPayment(customer);
        String newest = waitingForPayment(customer);
        WebDriver browser = signedIn(OPERATOR);
        open(browser, "/orders?sort=updated&size=1&q=" + customer);
        waitOn(browser).until(driver -> rowIds(driver).equals(List.of(newest)));
        DashboardBrowserTest.click(browser, By.id("page-next"));
        waitOn(browser).until(driver -> rowIds(driver).equals(List.of(middle)));
        assertThat(browser.findElements(By.id("list-moved"))).isEmpty();

        // the order not seen yet changes: it moves to the first page, ahead of the cursor
        http.post().uri("/api/v1/orders/" + oldest + "/events").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("event", "payment.received", "payload", Map.of("source", "test")))
                .exchange().expectStatus().is2xxSuccessful();
        waitOn(browser).until(ExpectedConditions.visibilityOfElementLocated(By.id("list-moved")));
        assertThat(browser.findElement(By.id("list-moved")).getText()).contains("The list moved");
        browser.findElement(By.id("list-reload")).click();
        waitOn(browser).until(driver -> rowIds(driver).equals(List.of(oldest)));
        assertThat(browser.findElement(By.id("page-range")).getText()).startsWith("1–1 of 3");
        assertThat(browser.findElements(By.id("list-moved"))).isEmpty();
    }

    @Test
    void the_inbox_and_the_orders_list_show_a_change_made_elsewhere_within_a_second_or_so() throws Exception {
        String orderId = waitingForApproval();
        WebDriver inbox = countingListPushes(signedIn(APPROVER));
        open(inbox, "/approvals");
        By inboxRow = By.cssSelector("tr[data-order='" + orderId + "']");
        waitOn(inbox).until(ExpectedConditions.presenceOfElementLocated(inboxRow));
        WebDriver orders = countingListPushes(signedIn(OPERATOR));
        open(orders, "/orders?q=" + orderId);
        By waitingOn = By.cssSelector("tr[data-order='" + orderId + "'] td.waiting-on");
        waitOn(orders).until(ExpectedConditions.textToBePresentInElementLocated(waitingOn, "Approve order"));
        for (WebDriver page : List.of(inbox, orders)) {
            waitOn(page).until(driver -> Boolean.TRUE.equals(js(driver, "return window.listSocketOpen;")));
        }

        http.post().uri("/api/v1/orders/" + orderId + "/approvals/approval").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("decision", "approved", "by", "elsewhere@example.com"))
                .exchange().expectStatus().is2xxSuccessful();
        await().atMost(WAIT).pollInterval(Duration.ofMillis(50)).until(() -> read(orderId).get("waits").isEmpty());
        await().atMost(PUSHED).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
            assertThat(inbox.findElements(inboxRow)).as("the decided approval leaves the pending inbox").isEmpty();
            assertThat(orders.findElement(waitingOn).getText()).as("what the order's row waits on").isEmpty();
        });
        // and it was a push that brought it, not one of the pages' slow fallback refreshes
        for (WebDriver page : List.of(inbox, orders)) {
            assertThat(((Number) js(page, "return window.listPushes;")).intValue()).as("pushes received")
                    .isPositive();
        }
    }

    /** Counts what the page's list socket receives ({@code window.listPushes}) and says once it is open. */
    private static WebDriver countingListPushes(WebDriver browser) {
        onEveryDocument(browser, """
                (() => {
                  const Native = window.WebSocket;
                  window.listPushes = 0;
                  window.listSocketOpen = false;
                  window.WebSocket = class extends Native {
                    constructor(url, protocols) {
                      super(url, protocols);
                      if (String(url).includes('/order-updates/socket')) {
                        this.addEventListener('open', () => { window.listSocketOpen = true; });
                        this.addEventListener('message', () => { window.listPushes += 1; });
                      }
                    }
                  };
                })();""");
        return browser;
    }
}

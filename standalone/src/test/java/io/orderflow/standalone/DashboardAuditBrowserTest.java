package io.orderflow.standalone;

import static io.orderflow.standalone.DashboardBrowserTest.APPROVER;
import static io.orderflow.standalone.DashboardBrowserTest.OPERATOR;
import static io.orderflow.standalone.DashboardBrowserTest.VIEWER;
import static io.orderflow.standalone.DashboardBrowserTest.WAIT;
import static io.orderflow.standalone.DashboardBrowserTest.open;
import static io.orderflow.standalone.DashboardBrowserTest.read;
import static io.orderflow.standalone.DashboardBrowserTest.signedIn;
import static io.orderflow.standalone.DashboardBrowserTest.waitingForApproval;
import static io.orderflow.standalone.DashboardBrowserTest.waitingForPayment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.math.BigDecimal;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.http.HttpHeaders;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * The dashboard's audit trail in Chromium, on a standalone system set up as {@link DashboardBrowserTest}'s (shared
 * password, an operator, an approver and a viewer): an approver's note and who cancelled in the order's timeline, a
 * payment reference and amount entered on the order page, and the Audit page listing the team's changes.
 */
@ExtendWith(DashboardBrowserTest.OnSharedSystem.class)
class DashboardAuditBrowserTest {

    /** {@link DashboardBrowserTest}'s explicit wait (a plain {@code wait} here would be {@link Object#wait}). */
    private static WebDriverWait waitOn(WebDriver browser) {
        return DashboardBrowserTest.wait(browser);
    }

    private static By timelineEntry(String kind) {
        return By.cssSelector("#timeline li[data-kind='" + kind + "']");
    }

    @Test
    void the_approvers_note_and_who_cancelled_show_in_the_timeline() {
        String approved = waitingForApproval();
        WebDriver approver = signedIn(APPROVER);
        open(approver, "/orders/" + approved);
        waitOn(approver).until(ExpectedConditions.elementToBeClickable(By.id("note-approval")))
                .sendKeys("within budget, checked with finance");
        approver.findElement(By.cssSelector("[data-wait=approval] .approve")).click();
        waitOn(approver).until(ExpectedConditions.textToBePresentInElementLocated(timelineEntry("close:approval"),
                "approved by " + APPROVER + ", note: within budget, checked with finance"));

        String cancelled = waitingForApproval();
        WebDriver operator = signedIn(OPERATOR);
        open(operator, "/orders/" + cancelled);
        waitOn(operator).until(ExpectedConditions.visibilityOfElementLocated(By.id("cancel-reason")))
                .sendKeys("Duplicate request");
        operator.findElement(By.id("cancel-order")).click();
        waitOn(operator).until(ExpectedConditions.textToBePresentInElementLocated(timelineEntry("cancel"),
                "Cancelled by " + OPERATOR + ": Duplicate request"));
        JsonNode entry = null;
        for (JsonNode t : read(cancelled).get("timeline")) {
            if (t.get("kind").asString().equals("cancel")) {
                entry = t;
            }
        }
        assertThat(entry).as("the cancel entry").isNotNull();
        assertThat(entry.get("data").get("by").asString()).isEqualTo(OPERATOR);
        assertThat(entry.get("data").get("reason").asString()).isEqualTo("Duplicate request");
    }

    @Test
    void a_payment_reference_and_amount_entered_on_the_order_page_travel_in_the_payload_and_show_in_the_timeline() {
        String orderId = waitingForPayment();
        BigDecimal total = read(orderId).get("order").get("total").decimalValue();
        WebDriver browser = signedIn(OPERATOR);
        open(browser, "/orders/" + orderId);
        WebElement reference = waitOn(browser).until(ExpectedConditions.elementToBeClickable(
                By.id("reference-await_payment")));
        reference.sendKeys("TX-77-ABC");
        browser.findElement(By.id("amount-await_payment")).sendKeys("1.005");
        browser.findElement(By.cssSelector("[data-wait=await_payment] .deliver")).click();

        // more decimals than dollars have: the agent refuses it and the wait stays open
        WebElement refused = waitOn(browser).until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#results [role=alert]")));
        assertThat(refused.getText())
                .contains("payload.amount must be a positive number in USD with at most 2 decimals");
        assertThat(read(orderId).get("waits").size()).isEqualTo(1);
        assertThat(browser.findElement(By.id("reference-await_payment")).getDomProperty("value"))
                .as("what was typed stays").isEqualTo("TX-77-ABC");

        browser.findElement(By.id("amount-await_payment")).clear();
        browser.findElement(By.id("amount-await_payment")).sendKeys(total.toPlainString());
        browser.findElement(By.cssSelector("[data-wait=await_payment] .deliver")).click();
        waitOn(browser).until(ExpectedConditions.textToBePresentInElementLocated(
                timelineEntry("close:payment.received"),
                "(reference TX-77-ABC, " + total.setScale(2).toPlainString() + " USD)"));
        JsonNode payload = await().atMost(WAIT).until(() -> read(orderId),
                order -> order.get("vars").has("payment_received")).get("vars").get("payment_received");
        assertThat(payload.get("reference").asString()).isEqualTo("TX-77-ABC");
        assertThat(payload.get("amount").decimalValue()).isEqualByComparingTo(total);
        assertThat(payload.get("currency").asString()).isEqualTo("USD");
        assertThat(payload.get("source").asString()).isEqualTo("dashboard");
    }

    @Test
    void the_audit_page_lists_the_teams_changes_and_the_token_list_shows_the_last_use() {
        WebDriver browser = signedIn(OPERATOR);
        open(browser, "/team");
        waitOn(browser).until(ExpectedConditions.visibilityOfElementLocated(By.id("token-name")))
                .sendKeys("audit-reader");
        browser.findElement(By.id("create-token")).click();
        String token = waitOn(browser).until(ExpectedConditions.visibilityOfElementLocated(By.id("new-token-value")))
                .getText();
        By row = By.cssSelector("tr[data-token=audit-reader]");
        waitOn(browser).until(ExpectedConditions.textToBePresentInElementLocated(row, "never"));

        // used once on the API: the list shows when
        WebTestClient.bindToServer().baseUrl(DashboardBrowserTest.base).responseTimeout(Duration.ofSeconds(15))
                .defaultHeader(HttpHeaders.AUTHORIZATION, "Bearer " + token).build()
                .get().uri("/api/v1/flows").exchange().expectStatus().isOk();
        await().atMost(WAIT).pollInterval(Duration.ofSeconds(1)).untilAsserted(() -> {
            open(browser, "/team");
            WebElement lastUsed = waitOn(browser).until(ExpectedConditions.presenceOfElementLocated(
                    By.cssSelector("tr[data-token=audit-reader] .token-last-used")));
            assertThat(lastUsed.findElements(By.tagName("time"))).hasSize(1);
        });

        // the Audit page, through the navigation, names who created it
        DashboardBrowserTest.click(browser, By.cssSelector("#nav a[href='/audit']"));
        By created = By.xpath("//tr[@data-action='token.created'][td[text()='audit-reader']]");
        WebElement entry = waitOn(browser).until(ExpectedConditions.presenceOfElementLocated(created));
        assertThat(entry.getText()).contains(OPERATOR, "Token created", "Created token audit-reader (viewer)");
        // the people the setup added, by the shared password
        assertThat(browser.findElement(By.xpath("//tr[@data-action='person.added'][td[text()='" + VIEWER + "']]"))
                .getText()).contains("Shared password", "Added " + VIEWER + " as viewer");

        // a viewer is told the log is for operators
        WebDriver viewer = signedIn(VIEWER);
        open(viewer, "/audit");
        waitOn(viewer).until(ExpectedConditions.textToBe(By.id("audit-needs-operator"),
                "The audit log needs the operator role."));
    }
}

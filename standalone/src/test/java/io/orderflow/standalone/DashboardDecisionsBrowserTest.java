package io.orderflow.standalone;

import static io.orderflow.standalone.DashboardBrowserTest.APPROVER;
import static io.orderflow.standalone.DashboardBrowserTest.http;
import static io.orderflow.standalone.DashboardBrowserTest.js;
import static io.orderflow.standalone.DashboardBrowserTest.WAIT;
import static io.orderflow.standalone.DashboardBrowserTest.click;
import static io.orderflow.standalone.DashboardBrowserTest.open;
import static io.orderflow.standalone.DashboardBrowserTest.read;
import static io.orderflow.standalone.DashboardBrowserTest.rowIds;
import static io.orderflow.standalone.DashboardBrowserTest.signedIn;
import static io.orderflow.standalone.DashboardBrowserTest.waitingForApproval;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.http.MediaType;

/**
 * Deciding approvals in Chromium when someone else is quicker, on a standalone system set up as
 * {@link DashboardBrowserTest}'s: the inbox and the order page say who decided what and when, with the order's status
 * and the typed note to copy, and offer nothing to press again. And deciding from the keyboard: after Approve the
 * keyboard is on the next row, so pressing Enter again does not reach Undo.
 */
@ExtendWith(DashboardBrowserTest.OnSharedSystem.class)
class DashboardDecisionsBrowserTest {

    /** {@link DashboardBrowserTest}'s explicit wait (a plain {@code wait} here would be {@link Object#wait}). */
    private static WebDriverWait waitOn(WebDriver browser) {
        return DashboardBrowserTest.wait(browser);
    }

    @Test
    void a_colleagues_decision_first_shows_in_the_inbox_who_decided_with_the_note_kept_and_no_retry() {
        String orderId = waitingForApproval();
        WebDriver browser = signedIn(APPROVER);
        open(browser, "/approvals");
        By row = By.cssSelector("tr[data-order='" + orderId + "']");
        waitOn(browser).until(ExpectedConditions.presenceOfElementLocated(row)).findElement(By.cssSelector("input.note"))
                .sendKeys("ship it");
        // found again when the inbox redrew between the find and the click
        click(browser, By.cssSelector("tr[data-order='" + orderId + "'] button.approve"));
        waitOn(browser).until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".undo-button")));
        // a colleague rejects the same approval during the undo window
        http.post().uri("/api/v1/orders/" + orderId + "/approvals/approval").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"decision\": \"rejected\", \"by\": \"ben@example.com\"}").exchange()
                .expectStatus().isOk();

        By said = By.cssSelector("tr[data-order='" + orderId + "'] .decided-elsewhere");
        waitOn(browser).until(ExpectedConditions.textMatches(said,
                Pattern.compile("Rejected by ben@example\\.com \\d+ s ago\\. The order is \\w")));
        assertThat(browser.findElement(By.id("inbox-summary")).getText())
                .contains("already decided by someone else").doesNotContain("failed");
        // past the inbox's refreshes the row says so, keeps the note to copy and offers nothing to press again
        String selector = "tr[data-order='" + orderId + "']";
        await().during(Duration.ofSeconds(12)).atMost(Duration.ofSeconds(15)).until(() -> js(browser,
                "const row = document.querySelector(arguments[0]);"
                        + "return row ? [row.querySelector('.decided-elsewhere')?.textContent,"
                        + " row.querySelector('.note-text')?.textContent,"
                        + " row.querySelectorAll('button.approve, button.reject, button.retry, input.pick').length,"
                        + " !!row.querySelector('button.copy-note')].join('|') : 'gone';", selector),
                shown -> String.valueOf(shown).matches("Rejected by ben@example\\.com .*\\|ship it\\|0\\|true"));
        // the inbox redraws its rows on each refresh: the row is read in one script and found again for the click
        assertThat(js(browser, "return document.querySelectorAll(arguments[0] + ' [role=alert]').length;", selector))
                .isEqualTo(0L);
        waitOn(browser).until(driver -> {
            driver.findElement(row).findElement(By.cssSelector("button.dismiss")).click();
            return true;
        });
        waitOn(browser).until(ExpectedConditions.numberOfElementsToBe(row, 0));
    }

    @Test
    void a_colleagues_decision_first_shows_on_the_order_page_who_decided_and_the_order_state_without_retry() {
        String orderId = waitingForApproval();
        WebDriver browser = signedIn(APPROVER);
        open(browser, "/orders/" + orderId);
        waitOn(browser).until(ExpectedConditions.elementToBeClickable(By.id("note-approval"))).sendKeys("fine by me");
        click(browser, By.cssSelector("[data-wait='approval'] button.approve"));
        waitOn(browser).until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".undo-button")));
        http.post().uri("/api/v1/orders/" + orderId + "/approvals/approval").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"decision\": \"approved\", \"by\": \"ben@example.com\"}").exchange()
                .expectStatus().isOk();

        By said = By.cssSelector("#results .decided-elsewhere");
        waitOn(browser).until(ExpectedConditions.textMatches(said,
                Pattern.compile("Approved by ben@example\\.com \\d+ s ago\\. The order is \\w")));
        // the page redraws on every push (the order goes on after the approval): status and text read in one script
        String[] shown = String.valueOf(js(browser, "return [document.getElementById('order-status').dataset.status,"
                + " document.querySelector('#results .decided-elsewhere').innerText].join('|');")).split("\\|");
        assertThat(shown[1]).endsWith("The order is " + shown[0].replace('_', ' ') + ".");
        assertThat(browser.findElement(By.cssSelector("#results .note-text")).getText()).isEqualTo("fine by me");
        assertThat(browser.findElements(By.cssSelector("#results button.copy-note"))).hasSize(1);
        assertThat(browser.findElements(By.cssSelector("#results button.retry, #results [role=alert], "
                + "[data-wait='approval'] button.approve"))).isEmpty();
    }

    @Test
    void after_approve_by_keyboard_the_focus_is_on_the_next_row_and_enter_twice_does_not_undo_it() {
        String first = waitingForApproval();
        String second = waitingForApproval();
        WebDriver browser = signedIn(APPROVER);
        open(browser, "/approvals");
        waitOn(browser).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-order='" + second + "']")));
        List<String> ids = rowIds(browser);
        assertThat(ids.indexOf(first)).isLessThan(ids.size() - 1);
        String next = ids.get(ids.indexOf(first) + 1);
        browser.findElement(By.cssSelector("tr[data-order='" + first + "'] button.approve")).sendKeys(Keys.ENTER);
        waitOn(browser).until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".undo-button")));
        waitOn(browser).until(driver -> ("pick-" + next + "-approval").equals(js(driver, "return document.activeElement.id;")));
        new Actions(browser).sendKeys(Keys.ENTER).pause(Duration.ofMillis(200)).sendKeys(Keys.ENTER).perform();

        await().atMost(WAIT).until(() -> read(first).get("nodes").get("approval").get("output") instanceof
                tools.jackson.databind.JsonNode output && output.has("decision")
                && "approved".equals(output.get("decision").asString()));
        assertThat(browser.findElement(By.id("undo-tray")).getText()).doesNotContain("Undone");
        assertThat(read(next).get("waits").size()).isEqualTo(1);
    }
}

package io.orderflow.standalone;

import static io.orderflow.standalone.DashboardBrowserTest.OPERATOR;
import static io.orderflow.standalone.DashboardBrowserTest.VIEWER;
import static io.orderflow.standalone.DashboardBrowserTest.browser;
import static io.orderflow.standalone.DashboardBrowserTest.js;
import static io.orderflow.standalone.DashboardBrowserTest.open;
import static io.orderflow.standalone.DashboardBrowserTest.signedIn;
import static io.orderflow.standalone.DashboardBrowserTest.waitingForApproval;
import static io.orderflow.standalone.DashboardBrowserTest.waitingForPayment;
import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.schemas.json.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.http.MediaType;
import tools.jackson.databind.JsonNode;

/**
 * Every page of the dashboard checked by axe-core (vendored in {@code src/test/resources/axe/}, injected into the
 * page): no violation of impact serious or critical, on the pages as an operator sees them with data on them, the
 * sign-in page, the start form with an error shown, every page the navigation links to (so a page added to it is
 * checked too), and the busiest pages again at a phone's width. Also the order page's skip link to the order's
 * actions. A system of its own, DashboardBrowserTest's setup.
 */
@ExtendWith(DashboardBrowserTest.OnSharedSystem.class)
class DashboardAccessibilityTest {

    private static final String AXE = resource("/axe/axe.min.js");
    private static final By APPROVE = By.cssSelector("[data-wait=approval] .approve");

    @Test
    void no_page_has_a_serious_or_critical_accessibility_violation() {
        String waiting = waitingForApproval();
        String b2b = waitingForPayment();
        DashboardBrowserTest.http.post().uri("/api/v1/webhook-subscriptions").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"url\": \"http://localhost:9/hook\", \"events\": [\"order.completed\"]}")
                .exchange().expectStatus().isCreated();
        Map<String, List<String>> found = new LinkedHashMap<>();

        WebDriver signedOut = browser();
        open(signedOut, "/sign-in");
        waiting(signedOut).until(ExpectedConditions.visibilityOfElementLocated(By.id("password")));
        found.put("/sign-in", violations(signedOut));

        WebDriver browser = signedIn(OPERATOR);
        open(browser, "/orders/" + waiting);
        waiting(browser).until(ExpectedConditions.elementToBeClickable(APPROVE));
        browser.findElement(By.cssSelector("svg.graph .node[data-node=approval]")).click();
        waiting(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("node-details"), "Runs"));
        found.put("/orders/{id}", violations(browser));

        open(browser, "/approvals");
        waiting(browser).until(ExpectedConditions.presenceOfElementLocated(row(waiting)));
        found.put("/approvals", violations(browser));
        open(browser, "/back-office");
        waiting(browser).until(ExpectedConditions.presenceOfElementLocated(row(b2b)));
        found.put("/back-office", violations(browser));

        open(browser, "/orders/new");
        waiting(browser).until(ExpectedConditions.elementToBeClickable(By.id("start-line-0-qty"))).clear();
        browser.findElement(By.id("start-submit")).click(); // no SKU, no quantity: the API's errors by their fields
        waiting(browser).until(ExpectedConditions.visibilityOfElementLocated(By.id("start-error")));
        found.put("/orders/new", violations(browser));

        // every page the navigation offers, with whatever it loads
        open(browser, "/orders");
        waiting(browser).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-order]")));
        @SuppressWarnings("unchecked")
        List<String> nav = (List<String>) js(browser,
                "return [...document.querySelectorAll('#nav a')].map((a) => new URL(a.href).pathname);");
        assertThat(nav).contains("/orders", "/approvals", "/back-office", "/webhooks", "/team", "/flows");
        for (String path : nav) {
            open(browser, path);
            loaded(browser);
            found.put(path, violations(browser));
        }

        // at a phone's width, where the tables turn into cards and the graph scrolls
        browser.manage().window().setSize(new Dimension(375, 812));
        for (String path : List.of("/orders/" + waiting, "/orders", "/approvals", "/orders/new")) {
            open(browser, path);
            loaded(browser);
            if (path.equals("/orders/" + waiting)) {
                waiting(browser).until(ExpectedConditions.elementToBeClickable(APPROVE));
            }
            found.put(path.replace(waiting, "{id}") + " at 375 px", violations(browser));
        }

        WebDriver viewer = signedIn(VIEWER);
        open(viewer, "/orders/" + waiting);
        waiting(viewer).until(ExpectedConditions.textToBePresentInElementLocated(By.id("waits"), "Deciding needs"));
        found.put("/orders/{id} as a viewer", violations(viewer));

        found.values().removeIf(List::isEmpty);
        assertThat(found).as("serious or critical axe violations by page").isEmpty();
    }

    @Test
    void the_order_page_has_a_skip_link_to_the_orders_actions() {
        String waiting = waitingForApproval();
        WebDriver browser = signedIn(OPERATOR);
        open(browser, "/orders/" + waiting);
        waiting(browser).until(ExpectedConditions.elementToBeClickable(APPROVE));
        js(browser, "document.getElementById('main').focus()");
        new Actions(browser).sendKeys(Keys.TAB).perform();
        assertThat(browser.switchTo().activeElement().getText()).isEqualTo("Skip to the order's actions");
        assertThat(browser.switchTo().activeElement().isDisplayed()).as("shown once focused").isTrue();
        new Actions(browser).sendKeys(Keys.ENTER).perform();
        waiting(browser).until(d -> "waits".equals(d.switchTo().activeElement().getDomAttribute("id")));
        assertThat(browser.getCurrentUrl()).endsWith("/orders/" + waiting);
        // the next Tab reaches the first action: the approval's note
        new Actions(browser).sendKeys(Keys.TAB).perform();
        assertThat(browser.switchTo().activeElement().getDomAttribute("id")).isEqualTo("note-approval");
    }

    private static By row(String orderId) {
        return By.cssSelector("tr[data-order='" + orderId + "']");
    }

    /** Waits until the page has its heading and nothing in it still says it is loading. */
    private static void loaded(WebDriver browser) {
        waiting(browser).until(d -> Boolean.TRUE.equals(((JavascriptExecutor) d).executeScript("""
                const main = document.getElementById('main');
                return !!main.querySelector('h1') && ![...main.querySelectorAll('p, div, span')]
                  .some((el) => /^Loading/.test(el.textContent.trim()));""")));
    }

    /** The serious and critical axe violations on the page as it is now, one line each with where they are. */
    private static List<String> violations(WebDriver browser) {
        JavascriptExecutor js = (JavascriptExecutor) browser;
        if (!Boolean.TRUE.equals(js.executeScript("return !!window.axe"))) {
            js.executeScript(AXE);
        }
        browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(60));
        String answer = String.valueOf(js.executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                axe.run(document, { resultTypes: ['violations'] }).then((r) => done(JSON.stringify(r.violations
                  .filter((v) => v.impact === 'serious' || v.impact === 'critical')
                  .map((v) => ({ id: v.id, impact: v.impact, help: v.help,
                    where: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) })))), (e) => done(String(e)));"""));
        List<String> lines = new ArrayList<>();
        for (JsonNode violation : Json.MAPPER.readTree(answer)) {
            lines.add(violation.get("impact").asString() + " " + violation.get("id").asString() + ": "
                    + violation.get("help").asString() + " at " + violation.get("where"));
        }
        return lines;
    }

    private static String resource(String name) {
        try (InputStream in = DashboardAccessibilityTest.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the test resources");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** DashboardBrowserTest's explicit wait ({@code wait} itself would be Object's). */
    private static WebDriverWait waiting(WebDriver browser) {
        return DashboardBrowserTest.wait(browser);
    }
}

package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.schemas.json.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The dashboard's System page in Chromium (as {@link DashboardBrowserTest} drives it), on the shared standalone system,
 * an open deployment where everybody is an operator: after a few orders it shows every service ready, the orders
 * started and in flight by status, a rate once it has refreshed, and the consumer lag of the services' groups.
 * Skipped without Chromium unless {@code CI=true}.
 */
@ExtendWith(SharedStandalone.class)
class SystemPageBrowserTest {

    private static final Duration WAIT = Duration.ofSeconds(30);
    private static WebTestClient http;
    private static String base;
    private WebDriver browser;

    @BeforeAll
    static void start(StandaloneSystem system) {
        boolean installed = RefindingBrowser.installed();
        Assumptions.assumeTrue(installed || "true".equalsIgnoreCase(System.getenv("CI")),
                "Chromium is not installed: the System page's browser test is skipped");
        http = SharedStandalone.client(system);
        base = "http://localhost:" + system.gatewayPort();
    }

    @AfterEach
    void closeBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void the_system_page_shows_readiness_orders_in_flight_and_lag_after_a_few_orders() throws Exception {
        List<String> orders = List.of(start("storefront_order", "MUG", "USD"), start("storefront_order", "MUG", "USD"),
                start("b2b_order", "WIDGET-1", "EUR"));
        await().atMost(Duration.ofSeconds(60)).until(() -> status(orders.get(0)).equals("completed")
                && status(orders.get(1)).equals("completed") && status(orders.get(2)).equals("waiting"));

        browser = browser();
        browser.get(base + "/system");
        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        wait.ignoring(StaleElementReferenceException.class);
        for (String service : List.of("gateway", "order-processor", "flow-runner", "webhook-dispatcher")) {
            wait.until(ExpectedConditions.presenceOfElementLocated(
                    By.cssSelector("tr[data-service='" + service + "'][data-status=UP]")));
        }
        assertThat(browser.findElement(By.id("system-status")).getText()).startsWith("The system is ready");
        assertThat(browser.findElement(By.cssSelector("nav a[aria-current=page]")).getText()).isEqualTo("System");
        wait.until(d -> Long.parseLong(d.findElement(By.cssSelector("#in-flight li[data-name=waiting] .n")).getText())
                >= 1);
        long shown = Long.parseLong(browser.findElement(By.id("orders-started")).getText());
        long counted = Json.MAPPER.readTree(http.get().uri("/api/v1/system").exchange().expectStatus().isOk()
                .expectBody().returnResult().getResponseBody()).at("/orders/started").asLong();
        assertThat(shown).as("the orders started, as the meters count them").isGreaterThanOrEqualTo(3)
                .isLessThanOrEqualTo(counted);
        // a group's lag is listed once its consumer has fetched and the page has refreshed after that
        wait.until(ExpectedConditions.presenceOfElementLocated(
                By.cssSelector("tr[data-group=orderflow-order-processor]")));
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-group=orderflow-flow-runner]")));
        // the page refreshes every 5 seconds; from its second answer on it shows a rate
        wait.until(ExpectedConditions.textMatches(By.id("orders-started-rate"), java.util.regex.Pattern
                .compile("^[0-9][0-9.,]*/s$")));
        // the rates say what they count, not "starting … / ending …"
        assertThat(browser.findElement(By.id("started-rate")).getText()).matches("started per second [0-9][0-9.,]*/s");
        assertThat(browser.findElement(By.id("ended-rate")).getText()).matches("ended per second [0-9][0-9.,]*/s");
        Path screenshot = Path.of("target", "page-screenshots", "system.png");
        Files.createDirectories(screenshot.getParent());
        Files.write(screenshot, ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
    }

    private static String start(String flow, String sku, String currency) {
        return Json.MAPPER.readTree(http.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("flowId", flow, "input", Map.of("type", flow, "customerId", "cus_system_page",
                        "currency", currency, "lines", List.of(Map.of("sku", sku, "qty", 1, "unitPrice", 9.5)),
                        "meta", Map.of("shipTo", "1 Main Street, Springfield"))))
                .exchange().expectStatus().isCreated().expectBody().returnResult().getResponseBody())
                .get("orderId").asString();
    }

    private static String status(String orderId) {
        return Json.MAPPER.readTree(http.get().uri("/api/v1/orders/" + orderId).exchange().expectStatus().isOk()
                .expectBody().returnResult().getResponseBody()).get("status").asString();
    }

    private static WebDriver browser() {
        return RefindingBrowser.chromium();
    }
}

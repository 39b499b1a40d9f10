package io.orderflow.standalone;

import static io.orderflow.standalone.DashboardBrowserTest.OPERATOR;
import static io.orderflow.standalone.DashboardBrowserTest.http;
import static io.orderflow.standalone.DashboardBrowserTest.js;
import static io.orderflow.standalone.DashboardBrowserTest.line;
import static io.orderflow.standalone.DashboardBrowserTest.onEveryDocument;
import static io.orderflow.standalone.DashboardBrowserTest.open;
import static io.orderflow.standalone.DashboardBrowserTest.rowIds;
import static io.orderflow.standalone.DashboardBrowserTest.signedIn;
import static io.orderflow.standalone.DashboardBrowserTest.start;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.schemas.json.Json;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The back office in Chromium with more waiting orders than one page holds, on the dashboard tests' shared system
 * ({@link DashboardBrowserTest}): the true number waiting, paging with the list's cursor to every order, and no
 * reads of single orders once the page is shown and nothing changed. Orders other tests left waiting count too: the
 * test reads how many there were first.
 */
@ExtendWith(DashboardBrowserTest.OnSharedSystem.class)
class DashboardBackOfficeBrowserTest {

    private static final int WAITING = 53;

    private static WebDriverWait waitOn(WebDriver browser) {
        return DashboardBrowserTest.wait(browser);
    }

    @Test
    void more_than_a_page_of_waiting_orders_pages_with_a_true_count_and_no_per_order_polling() {
        int before = waitingCount();
        int waiting = before + WAITING;
        List<String> started = IntStream.range(0, WAITING).mapToObj(i -> start("b2b_order", Map.of(
                "lines", List.of(line("WIDGET-1", 1 + i % 3, null)), "meta", Map.of("shipTo", "9 Quay Street, Galway"))))
                .toList();
        await().atMost(Duration.ofSeconds(120)).until(() -> waitingCount() == waiting);

        WebDriver browser = signedIn(OPERATOR);
        // counts the page's reads of single orders (GET /api/v1/orders/<id>)
        onEveryDocument(browser, """
                (() => {
                  const native = window.fetch;
                  window.orderReads = 0;
                  window.fetch = (url, init) => {
                    if (/\\/api\\/v1\\/orders\\/ord_[^/?]+$/.test(String(url))) window.orderReads += 1;
                    return native(url, init);
                  };
                })();""");
        open(browser, "/back-office");
        By range = By.id("back-office-range");
        waitOn(browser).until(ExpectedConditions.textToBe(range, "Waiting orders 1–50 of " + waiting + ", 50 a page"));
        By rows = By.cssSelector("#back-office-list tr[data-event='payment.received']");
        waitOn(browser).until(ExpectedConditions.numberOfElementsToBe(rows, 50));
        Set<String> seen = new HashSet<>(rowIds(browser));

        // past the 10-second refresh nothing changed, so nothing is read order by order again
        long reads = ((Number) js(browser, "return window.orderReads;")).longValue();
        assertThat(reads).isEqualTo(50);
        await().during(Duration.ofSeconds(12)).atMost(Duration.ofSeconds(15))
                .until(() -> ((Number) js(browser, "return window.orderReads;")).longValue() == reads);

        // newest first: the first page holds 50 of this test's orders, the pages after it the rest and the older ones
        for (int first = 51; first <= waiting; first += 50) {
            DashboardBrowserTest.click(browser, By.id("back-office-next"));
            waitOn(browser).until(ExpectedConditions.textToBe(range, "Waiting orders " + first + "–"
                    + Math.min(first + 49, waiting) + " of " + waiting + ", 50 a page"));
            seen.addAll(rowIds(browser));
        }
        assertThat(seen).hasSize(waiting).containsAll(started);
        assertThat(browser.findElement(By.id("back-office-next")).isEnabled()).isFalse();
    }

    private static int waitingCount() {
        return Json.MAPPER.readTree(http.get().uri("/api/v1/orders/counts").exchange().expectStatus().isOk()
                .expectBody().returnResult().getResponseBody()).get("counts").path("waiting").asInt(0);
    }
}

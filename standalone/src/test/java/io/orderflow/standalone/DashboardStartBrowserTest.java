package io.orderflow.standalone;

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
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.schemas.json.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.openqa.selenium.support.ui.Select;
import org.springframework.http.MediaType;
import tools.jackson.databind.JsonNode;

/**
 * The dashboard's start form, its orders list export and the flow graph as dagre lays it out, in Chromium against a
 * standalone system of their own (DashboardBrowserTest's setup and helpers).
 */
@ExtendWith(DashboardBrowserTest.OnSharedSystem.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardStartBrowserTest {

    @Test
    @Order(1)
    void the_empty_list_offers_the_form_and_an_order_started_from_it_completes() {
        WebDriver browser = signedIn(OPERATOR);
        // The shared system holds other tests' orders: the browser gets an empty answer to the list instead, which is
        // what a new system answers (the form and the order started from it are real).
        onEveryDocument(browser, """
                (() => {
                  const native = window.fetch;
                  window.fetch = (url, init) => /\\/api\\/v1\\/orders(\\?|$)/.test(String(url))
                      && (!init || !init.method || init.method === 'GET')
                    ? Promise.resolve(new Response('{"orders":[],"next":null}',
                        { status: 200, headers: { 'Content-Type': 'application/json' } }))
                    : native(url, init);
                })();""");
        open(browser, "/orders");
        WebElement offer = waiting(browser).until(ExpectedConditions.elementToBeClickable(By.id("start-first")));
        assertThat(browser.findElement(By.id("orders-list")).getText()).startsWith("No orders yet. Start an order");
        offer.click();
        waiting(browser).until(ExpectedConditions.urlToBe(DashboardBrowserTest.base + "/orders/new"));

        new Select(waiting(browser).until(ExpectedConditions.elementToBeClickable(By.id("start-flow"))))
                .selectByValue("storefront_order");
        browser.findElement(By.id("start-customer")).sendKeys("cus_from_form");
        new Select(browser.findElement(By.id("start-currency"))).selectByValue("USD");
        browser.findElement(By.id("start-line-0-sku")).sendKeys("TSHIRT-RED-M");
        browser.findElement(By.id("start-line-0-qty")).clear();
        browser.findElement(By.id("start-line-0-qty")).sendKeys("2");
        browser.findElement(By.id("start-line-0-unitPrice")).sendKeys("19.5");
        browser.findElement(By.id("add-line")).click();
        waiting(browser).until(ExpectedConditions.elementToBeClickable(By.id("start-line-1-sku"))).sendKeys("MUG-1");
        browser.findElement(By.cssSelector("[data-line='1'] .remove-line")).click();
        waiting(browser).until(ExpectedConditions.numberOfElementsToBe(By.cssSelector("[data-line]"), 1));
        browser.findElement(By.id("start-ship-to")).sendKeys("1 Main Street, Springfield");
        ((JavascriptExecutor) browser).executeScript("window.sameDocument = 'yes'");
        browser.findElement(By.id("start-submit")).click();

        // the new order's page opens without a reload and the order runs to the end
        waiting(browser).until(ExpectedConditions.urlMatches("/orders/ord_[^/]+$"));
        waiting(browser).until(ExpectedConditions.attributeToBe(By.id("order-status"), "data-status", "completed"));
        assertThat(js(browser, "return window.sameDocument")).isEqualTo("yes");
        assertThat(browser.findElement(By.id("order-total")).getText()).isEqualTo("$42.12");
        String orderId = browser.getCurrentUrl().substring(browser.getCurrentUrl().lastIndexOf('/') + 1);
        JsonNode order = read(orderId);
        assertThat(order.get("order").get("customerId").asString()).isEqualTo("cus_from_form");
        assertThat(order.get("order").get("lines")).hasSize(1);
        assertThat(order.get("order").get("lines").get(0).get("sku").asString()).isEqualTo("TSHIRT-RED-M");
        assertThat(order.get("flow").get("flowId").asString()).isEqualTo("storefront_order");

        // the graph of the finished order, read from the SVG after the layout: every node succeeded or was skipped
        // on a branch not taken, taken edges drawn as taken, and nothing drawn on top of anything else
        JsonNode drawn = Json.MAPPER.readTree(String.valueOf(js(browser, GEOMETRY, "svg.graph")));
        assertThat(drawn.get("statuses").valueStream().map(JsonNode::asString).distinct())
                .contains("succeeded").doesNotContain("waiting", "running");
        assertThat(drawn.get("activeEdges").asInt()).isPositive();
        assertThat(drawn.get("overlaps")).as("boxes that overlap").isEmpty();
        assertThat(drawn.get("crossings")).as("edges through a node").isEmpty();
    }

    @Test
    void a_bad_field_shows_the_apis_error_next_to_it_and_keeps_the_input() {
        String customer = "cus_bad_field_" + System.nanoTime();
        WebDriver browser = signedIn(OPERATOR);
        open(browser, "/orders/new?flow=b2b_order");
        waiting(browser).until(ExpectedConditions.elementToBeClickable(By.id("start-customer"))).sendKeys(customer);
        browser.findElement(By.id("start-line-0-sku")).sendKeys("WIDGET-1");
        WebElement qty = browser.findElement(By.id("start-line-0-qty"));
        qty.clear();
        qty.sendKeys("0");
        browser.findElement(By.id("start-ship-to")).click();
        // checked against the API's schema as the field is left
        waiting(browser).until(ExpectedConditions.textToBe(By.id("start-line-0-qty-error"), "must be at least 1"));

        browser.findElement(By.id("start-submit")).click();
        WebElement error = waiting(browser).until(ExpectedConditions.visibilityOfElementLocated(By.id("start-error")));
        // what the API answers for the same body is what the page shows, next to the quantity
        JsonNode refused = Json.MAPPER.readTree(http.post().uri("/api/v1/orders")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("flowId", "b2b_order", "input", Map.of("type", "b2b_order", "currency", "USD",
                        "customerId", customer, "lines", List.of(Map.of("sku", "WIDGET-1", "qty", 0)))))
                .exchange().expectStatus().isBadRequest().expectBody().returnResult().getResponseBody());
        assertThat(refused.get("issues")).hasSize(1);
        assertThat(refused.get("issues").get(0).get("path").asString()).isEqualTo("/input/lines/0/qty");
        assertThat(error.getText()).contains(refused.get("error").asString());
        waiting(browser).until(ExpectedConditions.textToBe(By.id("start-line-0-qty-error"),
                refused.get("issues").get(0).get("message").asString()));
        assertThat(browser.findElement(By.id("start-line-0-qty")).getDomAttribute("aria-invalid")).isEqualTo("true");
        assertThat(browser.switchTo().activeElement().getDomAttribute("id")).isEqualTo("start-line-0-qty");
        assertThat(browser.findElement(By.id("start-customer")).getDomProperty("value")).isEqualTo(customer);
        assertThat(browser.findElement(By.id("start-line-0-sku")).getDomProperty("value")).isEqualTo("WIDGET-1");
        assertThat(browser.findElement(By.id("start-line-0-qty")).getDomProperty("value")).isEqualTo("0");
        assertThat(browser.getCurrentUrl()).endsWith("/orders/new?flow=b2b_order");
        assertThat(listed(customer)).as("nothing was started").isZero();
        DashboardBrowserTest.pageScreenshot(browser, "start");

        // corrected, the same form starts the order
        qty.clear();
        qty.sendKeys("3");
        browser.findElement(By.id("start-submit")).click();
        waiting(browser).until(ExpectedConditions.urlMatches("/orders/ord_[^/]+$"));
        waiting(browser).until(ExpectedConditions.presenceOfElementLocated(By.id("order-status")));
        await().atMost(WAIT).until(() -> listed(customer) == 1);
    }

    @Test
    void a_viewer_is_told_that_starting_needs_the_operator_role() {
        WebDriver browser = signedIn(VIEWER);
        open(browser, "/orders/new");
        assertThat(waiting(browser).until(ExpectedConditions.visibilityOfElementLocated(By.id("start-not-allowed")))
                .getText()).isEqualTo("Starting an order needs the operator role.");
        assertThat(browser.findElements(By.id("start-form"))).isEmpty();
        open(browser, "/orders");
        waiting(browser).until(ExpectedConditions.presenceOfElementLocated(By.id("export-csv")));
        assertThat(browser.findElements(By.id("start-order"))).isEmpty();
    }

    @Test
    void the_orders_list_exports_every_matching_order_as_csv_in_the_lists_order() {
        String customer = "cus_csv_" + System.nanoTime();
        List<String> started = new ArrayList<>();
        for (int i = 0; i < 205; i++) { // more than one page of the list API (200)
            started.add(DashboardBrowserTest.start("b2b_order", Map.of("customerId", customer,
                    "lines", List.of(line("WIDGET-1", 1, null)), "meta", Map.of("shipTo", "9 Quay Street"))));
        }
        // all settled (waiting for payment), then the first changes once more: it comes first by last change
        await().atMost(WAIT).until(() -> Json.MAPPER.readTree(http.get().uri("/api/v1/orders/counts?q=" + customer)
                .exchange().expectStatus().isOk().expectBody().returnResult().getResponseBody())
                .get("counts").path("waiting").asInt() == started.size());
        http.post().uri("/api/v1/orders/" + started.getFirst() + "/cancel").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{}").exchange().expectStatus().isOk();
        WebDriver browser = signedIn(VIEWER);
        open(browser, "/orders?q=" + customer + "&sort=updated");
        waiting(browser).until(ExpectedConditions.textToBe(By.id("page-range"), "1–50 of 205"));
        await().atMost(WAIT).untilAsserted(() -> assertThat(rowIds(browser)).first().isEqualTo(started.getFirst()));
        // the page's CSV, as the download gets it
        js(browser, """
                window.exports = [];
                const make = URL.createObjectURL;
                URL.createObjectURL = (blob) => { window.exports.push(blob); return make(blob); };""");
        browser.findElement(By.id("export-csv")).click();
        waiting(browser).until(ExpectedConditions.textToBe(By.id("export-status"), "Exported 205 orders."));
        browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(15));
        String csv = String.valueOf(((JavascriptExecutor) browser).executeAsyncScript(
                "const done = arguments[arguments.length - 1]; window.exports[0].text().then(done);"));
        List<String> rows = List.of(csv.split("\r?\n"));
        assertThat(rows.getFirst()).isEqualTo(
                "id,title,type,status,customer,total,currency,waiting_on,created_at,updated_at");
        assertThat(rows).hasSize(206);
        assertThat(rows.get(1)).startsWith(started.getFirst() + ",").contains(",cancelled," + customer + ",");
        assertThat(rows.subList(1, rows.size()).stream().map(row -> row.substring(0, row.indexOf(','))))
                .as("every order once, the last changed first").containsExactlyInAnyOrderElementsOf(started);
        assertThat(rows.get(2)).matches(".*,\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z$");
        // a field a spreadsheet would run as a formula is sent as text; quotes and commas are quoted
        Object fields = ((JavascriptExecutor) browser).executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                import('/assets/pages.js').then(({ csvField }) =>
                  done([csvField('=SUM(A1)'), csvField('a, "b"'), csvField(12.5)].join('|')));""");
        assertThat(fields).isEqualTo("'=SUM(A1)|\"a, \"\"b\"\"\"|12.5");
    }

    @Test
    void the_graph_keeps_every_state_look_after_the_layout_and_routes_edges_and_labels_clear_of_each_other() {
        WebDriver browser = signedIn(VIEWER);
        open(browser, "/orders");
        waiting(browser).until(ExpectedConditions.presenceOfElementLocated(By.id("my-role")));
        browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(15));
        // the page's own drawing code, given a flow with branches, labels, a loop back and every state
        Object drawn = ((JavascriptExecutor) browser).executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                const geometry = new Function(arguments[0]);
                import('/assets/graph.js').then(({ drawGraph }) => {
                  const node = (id, type, title) => ({ id, type, title: title || id });
                  const edge = (id, from, to, branch) => ({ id, from, to, branch });
                  const state = {
                    flow: { graph: { id: 'g', nodes: [node('start', 'task', 'Check the order'),
                        node('first', 'approval', 'Manager approval'), node('second', 'approval', 'Director'),
                        node('pay', 'wait', 'Await payment'), node('ship', 'task', 'Ship'),
                        node('refund', 'task', 'Refund'), node('end', 'end', 'Done')],
                      edges: [edge('a', 'start', 'first'), edge('b', 'first', 'second', 'escalated'),
                        edge('c', 'first', 'pay', 'approved'), edge('d', 'first', 'end', 'rejected'),
                        edge('e', 'second', 'pay', 'approved'), edge('f', 'second', 'end', 'rejected'),
                        edge('g', 'pay', 'ship', 'paid'), edge('h', 'pay', 'refund', 'timeout'),
                        edge('i', 'refund', 'start', 'retry'), edge('j', 'ship', 'end')] } },
                    nodes: { start: { status: 'succeeded' }, first: { status: 'succeeded', branches: ['escalated'] },
                      second: { status: 'succeeded', branches: ['approved'] }, pay: { status: 'waiting' },
                      refund: { status: 'skipped' } },
                    edges: { a: 'active', b: 'active', c: 'inactive', d: 'inactive', e: 'active', f: 'inactive' },
                  };
                  const svg = drawGraph(state, null, () => {});
                  svg.classList.add('laid-out');
                  document.querySelector('main').append(svg);
                  done(geometry('svg.laid-out'));
                }, (e) => done(String(e)));""", GEOMETRY);
        JsonNode graph = Json.MAPPER.readTree(String.valueOf(drawn));
        JsonNode nodes = graph.get("nodes");
        assertThat(nodes.get("first").get("outcome").asString()).isEqualTo("escalated");
        assertThat(nodes.get("first").get("dash").asString()).as("escalated is dashed").isNotEqualTo("none");
        assertThat(nodes.get("second").get("outcome").asString()).isEqualTo("approved");
        assertThat(nodes.get("second").get("dash").asString()).isEqualTo("none");
        assertThat(nodes.get("first").get("fill").asString()).isNotEqualTo(nodes.get("second").get("fill").asString());
        assertThat(nodes.get("pay").get("status").asString()).isEqualTo("waiting");
        assertThat(nodes.get("pay").get("label").asString()).contains("waiting");
        // reported skipped, but the waiting payment can still time out into it: drawn as what can still run
        // (DashboardGraphBrowserTest draws the skipped look on orders where a node can no longer run)
        assertThat(nodes.get("refund").get("status").asString()).isEqualTo("pending");
        assertThat(nodes.get("ship").get("status").asString()).isEqualTo("pending");
        assertThat(graph.get("activeEdges").asInt()).isEqualTo(3);
        assertThat(graph.get("inactiveEdges").asInt()).isEqualTo(3);
        assertThat(graph.get("labels").asInt()).as("one label per branch").isEqualTo(8);
        // the layout: boxes and labels apart, edges around the nodes they do not join, every title inside its box
        assertThat(graph.get("overlaps")).as("boxes that overlap").isEmpty();
        assertThat(graph.get("crossings")).as("edges through a node").isEmpty();
        assertThat(graph.get("unfit")).as("titles wider than their box").isEmpty();
        assertThat(graph.get("outside")).as("anything outside the drawing").isEmpty();
    }

    /** How many orders the list API has for a customer. */
    private static int listed(String customer) {
        return Json.MAPPER.readTree(http.get().uri("/api/v1/orders?q=" + customer).exchange().expectStatus().isOk()
                .expectBody().returnResult().getResponseBody()).get("orders").size();
    }

    /**
     * Reads a drawn graph (the SVG matched by arguments[0]) back from the page: each node's status and look, the edges
     * by status, and the layout's faults: boxes (nodes and edge labels) that overlap, edges that pass through a node
     * they do not join (sampled every 4 px along the path, with a 2 px margin), titles wider than their box, and
     * anything outside the drawing's view box. Answers JSON.
     */
    static final String GEOMETRY = """
            const svg = document.querySelector(arguments[0]);
            const view = svg.viewBox.baseVal;
            const box = (el) => { const b = el.getBBox(); const m = el.getCTM(); const s = svg.getCTM().inverse();
              const p = new DOMPoint(b.x, b.y).matrixTransform(m).matrixTransform(s);
              return { x: p.x, y: p.y, w: b.width, h: b.height }; };
            const nodes = {}, boxes = [], overlaps = [], crossings = [], unfit = [], outside = [];
            for (const g of svg.querySelectorAll('.node')) {
              const rect = g.querySelector('rect');
              const style = getComputedStyle(rect);
              nodes[g.dataset.node] = { status: g.dataset.status, outcome: g.getAttribute('data-outcome'),
                dash: style.strokeDasharray, fill: style.fill, label: g.textContent };
              boxes.push({ id: g.dataset.node, ...box(rect) });
              for (const t of g.querySelectorAll('text')) {
                if (t.getBBox().x + t.getComputedTextLength() > rect.width.baseVal.value) unfit.push(g.dataset.node);
              }
            }
            const labels = [...svg.querySelectorAll('.edge rect.edge-label')];
            labels.forEach((l) => boxes.push({ id: 'label ' + l.parentNode.dataset.edge, ...box(l) }));
            for (let i = 0; i < boxes.length; i++) {
              const a = boxes[i];
              if (a.x < view.x || a.y < view.y || a.x + a.w > view.x + view.width || a.y + a.h > view.y + view.height)
                outside.push(a.id);
              for (let j = i + 1; j < boxes.length; j++) {
                const b = boxes[j];
                if (a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h)
                  overlaps.push(a.id + ' / ' + b.id);
              }
            }
            const ends = (id) => { const e = [...svg.querySelectorAll('.edge')].find((g) => g.dataset.edge === id);
              return e.querySelector('title').textContent.split(':')[0]; };
            for (const g of svg.querySelectorAll('.edge')) {
              const path = g.querySelector('path');
              const [from, rest] = ends(g.dataset.edge).split(' → ');
              const to = rest.split(' (')[0];
              const length = path.getTotalLength();
              for (const b of boxes.filter((b) => !b.id.startsWith('label ') && b.id !== from && b.id !== to)) {
                for (let s = 0; s <= length; s += 4) {
                  const p = path.getPointAtLength(s);
                  if (p.x > b.x + 2 && p.x < b.x + b.w - 2 && p.y > b.y + 2 && p.y < b.y + b.h - 2) {
                    crossings.push(g.dataset.edge + ' through ' + b.id);
                    break;
                  }
                }
              }
            }
            return JSON.stringify({ nodes, statuses: Object.values(nodes).map((n) => n.status),
              activeEdges: svg.querySelectorAll('.edge.active').length,
              inactiveEdges: svg.querySelectorAll('.edge.inactive').length, labels: labels.length,
              overlaps, crossings, unfit, outside });""";

    /** DashboardBrowserTest's explicit wait ({@code wait} itself would be Object's). */
    private static WebDriverWait waiting(WebDriver browser) {
        return DashboardBrowserTest.wait(browser);
    }
}

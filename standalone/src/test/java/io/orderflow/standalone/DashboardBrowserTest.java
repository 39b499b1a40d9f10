package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.testing.TestKafka;
import io.orderflow.schemas.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.AfterTestExecutionCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chromium.HasCdp;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;

/**
 * The dashboard in a real browser: the system's Chromium, driven by its chromedriver through Selenium, against one
 * standalone system with a shared password and three people (operator, approver, viewer). Each test opens fresh
 * browsers (so fresh sessions) and works on orders of its own. A failing test leaves a screenshot of each of its
 * browsers in {@code target/screenshots/}; the page tour leaves one of each page in {@code target/page-screenshots/}.
 *
 * <p>Without Chromium on the machine the tests are skipped, except in CI ({@code CI=true}), where they must run. The
 * other dashboard browser test classes ({@link DashboardStartBrowserTest}, {@link DashboardAccessibilityTest}, ...)
 * run on the same system ({@link OnSharedSystem}) and use the package-private helpers below.
 */
@ExtendWith(DashboardBrowserTest.OnSharedSystem.class)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DashboardBrowserTest {

    static final String PASSWORD = "browser-shared-password";
    static final String PEOPLE_PASSWORD = "correct horse battery staple";
    static final String OPERATOR = "olga@example.com";
    static final String APPROVER = "arne@example.com";
    static final String VIEWER = "vera@example.com";
    /**
     * How long a browser waits for what a page shows: a page answers in well under a second on a quiet machine, but
     * beside other test JVMs, their systems and browsers on two cores (load averages of 20 to 30), the start form
     * took over 30 s to render its first line.
     */
    static final Duration WAIT = Duration.ofSeconds(60);
    /** The incidents page once its list has answered, with rows or without. */
    private static final By LOADED_INCIDENTS = By.xpath(
            "//div[@id='incidents-list' and not(contains(., 'Loading incidents'))]");
    /** The batches page once its list has answered, with rows or without. */
    private static final By LOADED_BATCHES = By.xpath(
            "//div[@id='batches-list' and not(contains(., 'Loading batches'))]");

    private static StandaloneSystem system;
    static WebTestClient http;
    static String base;
    /** The browsers of the running test, screenshotted on failure and closed after it. */
    static final List<WebDriver> browsers = new CopyOnWriteArrayList<>();

    /** Skips the class unless Chromium and its driver are installed or the run is CI's, where they must be. */
    private static void assumeChromium() {
        boolean installed = RefindingBrowser.installed();
        boolean ci = "true".equalsIgnoreCase(System.getenv("CI"));
        Assumptions.assumeTrue(installed || ci, "Chromium is not installed (/usr/bin/chromium, /usr/bin/chromedriver): "
                + "the dashboard's browser tests are skipped. apt-get install chromium chromium-driver to run them");
    }

    /** The system every dashboard browser test class of the run shares ({@link OnSharedSystem}). */
    private static void start() {
        // The services read settings from the environment or, as here, from system properties.
        System.setProperty("APP_PASSWORD", PASSWORD);
        System.setProperty("AI_MODE", "mock");
        // Real time: at the default TIME_SCALE (1440) a purchase request's approval escalates after 2 minutes and the
        // director's after 1 more, so on a loaded machine an order a test works on changed under it (an approval
        // gone from the page, a waiting count that fell while the test counted its own orders in).
        System.setProperty("TIME_SCALE", "1");
        try {
            system = StandaloneSystem.start(new StandaloneSettings(0, TestKafka.uniqueStateDir("dashboard-browser"),
                    Optional.empty(), 0));
        } finally {
            System.clearProperty("APP_PASSWORD");
            System.clearProperty("AI_MODE");
            System.clearProperty("TIME_SCALE");
        }
        base = "http://localhost:" + system.gatewayPort();
        http = WebTestClient.bindToServer().baseUrl(base).responseTimeout(Duration.ofSeconds(15))
                .defaultHeader(HttpHeaders.AUTHORIZATION, "Bearer " + PASSWORD).build();
        await().atMost(WAIT).untilAsserted(() -> http.get().uri("/api/v1/flows").exchange().expectStatus().isOk()
                .expectBody().jsonPath("$.flows.length()").isEqualTo(5));
        addPerson(OPERATOR, "Olga Operator", "operator");
        addPerson(APPROVER, "Arne Approver", "approver");
        addPerson(VIEWER, "Vera Viewer", "viewer");
    }

    private static void stop() {
        if (system != null) {
            system.close();
            system = null;
        }
    }

    // ---- the tests ------------------------------------------------------------------------------------------------

    @Test
    void signs_in_and_out_and_shows_who_is_signed_in() {
        WebDriver browser = browser();
        browser.get(base + "/orders");
        wait(browser).until(ExpectedConditions.visibilityOfElementLocated(By.id("password")));
        assertThat(browser.getCurrentUrl()).endsWith("/sign-in");

        browser.findElement(By.id("email")).sendKeys(OPERATOR);
        browser.findElement(By.id("password")).sendKeys("wrong password");
        browser.findElement(By.id("sign-in")).click();
        wait(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("[role=alert]"),
                "Wrong email or password"));

        browser.findElement(By.id("password")).clear();
        browser.findElement(By.id("password")).sendKeys(PEOPLE_PASSWORD);
        browser.findElement(By.id("sign-in")).click();
        wait(browser).until(ExpectedConditions.textToBe(By.id("my-role"), "operator"));
        assertThat(browser.findElement(By.id("who-am-i")).getText()).contains("Olga Operator");
        assertThat(browser.getCurrentUrl()).endsWith("/orders");

        browser.findElement(By.id("sign-out")).click();
        wait(browser).until(ExpectedConditions.visibilityOfElementLocated(By.id("password")));
        browser.get(base + "/team");
        wait(browser).until(ExpectedConditions.visibilityOfElementLocated(By.id("password")));

        // the shared password alone signs in as the break-glass operator
        browser.findElement(By.id("password")).sendKeys(PASSWORD);
        browser.findElement(By.id("sign-in")).click();
        wait(browser).until(ExpectedConditions.textToBe(By.id("my-role"), "operator"));
        assertThat(browser.findElement(By.id("who-am-i")).getText()).contains("Shared password");
        assertThat(browser.getCurrentUrl()).as("back to the page asked for").endsWith("/team");
    }

    @Test
    void an_order_started_by_the_api_completes_on_its_page_without_a_reload() {
        WebDriver browser = signedIn(OPERATOR);
        String orderId = start("storefront_order", Map.of("lines", List.of(line("TSHIRT-RED-M", 2, 19.5)),
                "meta", Map.of("shipTo", "1 Main Street, Springfield")));
        open(browser, "/orders/" + orderId);
        ((JavascriptExecutor) browser).executeScript("window.sameDocument = 'yes'");

        wait(browser).until(ExpectedConditions.attributeToBe(By.id("order-status"), "data-status", "completed"));
        assertThat(((JavascriptExecutor) browser).executeScript("return window.sameDocument")).isEqualTo("yes");
        assertThat(browser.findElement(By.id("live")).getText()).isEqualTo("Live");
        assertThat(browser.findElement(By.id("order-total")).getText()).isEqualTo("$42.12");
        assertThat(browser.findElements(By.cssSelector("svg.graph .node[data-status=succeeded]"))).hasSizeGreaterThan(5);
        assertThat(browser.findElements(By.cssSelector("svg.graph .edge.active"))).isNotEmpty();
        assertThat(browser.findElement(By.id("timeline")).getText()).contains("Order completed");

        // a node's details: runs and output
        browser.findElement(By.cssSelector("svg.graph .node[data-node=charge]")).click();
        wait(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("node-details"), "Runs"));
        assertThat(browser.findElement(By.id("node-status")).getText()).isEqualTo("succeeded");
        assertThat(browser.findElement(By.id("node-details")).getText()).contains("ms)", "Output");

        // and the orders list links to it
        open(browser, "/orders?q=" + orderId);
        wait(browser).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-order='" + orderId + "']")));
        assertThat(browser.findElement(By.id("status-counts")).getText()).contains("completed");
    }

    @Test
    void an_approval_from_the_inbox_waits_five_seconds_can_be_undone_and_then_goes_through() {
        String orderId = waitingForApproval();
        WebDriver browser = signedIn(APPROVER);
        open(browser, "/approvals");
        By approve = By.cssSelector("tr[data-order='" + orderId + "'] button.approve");
        click(browser, approve);
        click(browser, By.cssSelector(".undo-button"));
        wait(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("undo-tray"), "Nothing was sent"));
        // past the undo window, nothing was sent: the order still waits for its approval
        await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(8))
                .until(() -> read(orderId).get("waits").size() == 1);

        browser.findElement(By.cssSelector("tr[data-order='" + orderId + "'] input.note")).sendKeys("within budget");
        click(browser, approve);
        wait(browser).until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".undo-button")));
        assertThat(read(orderId).get("waits").size()).as("not sent during the undo window").isEqualTo(1);
        await().atMost(WAIT).until(() -> read(orderId).get("status").asString().equals("completed"));
        JsonNode decision = read(orderId).get("nodes").get("approval").get("output");
        assertThat(decision.get("decision").asString()).isEqualTo("approved");
        assertThat(decision.get("by").asString()).isEqualTo(APPROVER);
        assertThat(decision.get("note").asString()).isEqualTo("within budget");

        browser.findElement(By.cssSelector("[data-filter=approved]")).click();
        wait(browser).until(ExpectedConditions.presenceOfElementLocated(
                By.cssSelector("tr[data-order='" + orderId + "'][data-status=approved]")));
    }

    @Test
    void the_back_office_delivers_an_event_to_a_waiting_order() {
        String orderId = waitingForPayment();
        WebDriver browser = signedIn(OPERATOR);
        open(browser, "/back-office");
        By deliver = By.cssSelector("tr[data-order='" + orderId + "'] button.deliver");
        click(browser, deliver);
        wait(browser).until(ExpectedConditions.textToBePresentInElementLocated(
                By.cssSelector("tr[data-order='" + orderId + "']"), "Delivered to await_payment"));
        JsonNode state = await().atMost(WAIT).until(() -> read(orderId),
                order -> order.get("vars").has("payment_received"));
        assertThat(state.get("vars").get("payment_received").get("source").asString()).isEqualTo("back-office");
    }

    @Test
    void the_order_page_delivers_an_event_with_the_order_total_and_cancels_with_a_reason() {
        String b2b = waitingForPayment();
        WebDriver browser = signedIn(OPERATOR);
        open(browser, "/orders/" + b2b);
        wait(browser).until(ExpectedConditions.elementToBeClickable(By.cssSelector("[data-wait=await_payment] .deliver")))
                .click();
        JsonNode paid = await().atMost(WAIT).until(() -> read(b2b), order -> order.get("vars").has("payment_received"));
        JsonNode payload = paid.get("vars").get("payment_received");
        assertThat(payload.get("source").asString()).isEqualTo("dashboard");
        assertThat(payload.get("amount").decimalValue()).isEqualByComparingTo(paid.get("order").get("total").decimalValue());

        String orderId = waitingForApproval();
        open(browser, "/orders/" + orderId);
        wait(browser).until(ExpectedConditions.visibilityOfElementLocated(By.id("cancel-reason")))
                .sendKeys("Duplicate request");
        browser.findElement(By.id("cancel-order")).click();
        wait(browser).until(ExpectedConditions.attributeToBe(By.id("order-status"), "data-status", "cancelled"));
        // found again on each look: the page redraws on every push of the order
        wait(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("order-reason"),
                "Duplicate request"));
        assertThat(browser.findElements(By.id("cancel-order"))).isEmpty();
        assertThat(read(orderId).get("reason").asString()).contains("Duplicate request");
    }

    @Test
    void a_token_made_on_the_team_page_works_on_the_api() {
        WebDriver browser = signedIn(OPERATOR);
        open(browser, "/team");
        wait(browser).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-person='" + VIEWER + "']")));
        browser.findElement(By.id("token-name")).sendKeys("browser-reader");
        new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("token-role"))).selectByValue("viewer");
        browser.findElement(By.id("create-token")).click();
        String token = wait(browser).until(ExpectedConditions.visibilityOfElementLocated(By.id("new-token-value")))
                .getText();
        assertThat(token).startsWith("owf_");
        wait(browser).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-token=browser-reader]")));

        WebTestClient withToken = WebTestClient.bindToServer().baseUrl(base).responseTimeout(Duration.ofSeconds(15))
                .defaultHeader(HttpHeaders.AUTHORIZATION, "Bearer " + token).build();
        withToken.get().uri("/api/v1/orders").exchange().expectStatus().isOk();
        withToken.post().uri("/api/v1/orders/ord_0000000000000000000000/cancel").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{}").exchange().expectStatus().isForbidden();

        // revoked on the page, refused by the API
        browser.findElement(By.cssSelector("tr[data-token=browser-reader] button.danger")).click();
        await().atMost(WAIT).untilAsserted(() -> withToken.get().uri("/api/v1/orders").exchange()
                .expectStatus().isUnauthorized());
    }

    @Test
    void a_person_added_on_the_team_page_signs_in_with_the_password_shown_once() {
        WebDriver browser = signedIn(OPERATOR);
        open(browser, "/team");
        wait(browser).until(ExpectedConditions.visibilityOfElementLocated(By.id("person-email"))).sendKeys("nina@example.com");
        browser.findElement(By.id("person-name")).sendKeys("Nina New");
        new org.openqa.selenium.support.ui.Select(browser.findElement(By.id("person-role"))).selectByValue("approver");
        browser.findElement(By.id("add-person")).click();
        String password = wait(browser).until(ExpectedConditions.visibilityOfElementLocated(By.id("new-password")))
                .getText();
        wait(browser).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-person='nina@example.com']")));

        WebDriver nina = browser();
        open(nina, "/sign-in");
        wait(nina).until(ExpectedConditions.visibilityOfElementLocated(By.id("email"))).sendKeys("nina@example.com");
        nina.findElement(By.id("password")).sendKeys(password);
        nina.findElement(By.id("sign-in")).click();
        wait(nina).until(ExpectedConditions.textToBe(By.id("my-role"), "approver"));
    }

    @Test
    void a_webhook_subscription_made_on_the_page_shows_its_secret_once_and_can_be_deleted() {
        WebDriver browser = signedIn(OPERATOR);
        open(browser, "/webhooks");
        wait(browser).until(ExpectedConditions.visibilityOfElementLocated(By.id("webhook-url")))
                .sendKeys("http://localhost:9/browser-hook");
        browser.findElement(By.cssSelector("input[type=checkbox][value='order.completed']")).click();
        browser.findElement(By.cssSelector("form button[type=submit]")).click();
        assertThat(wait(browser).until(ExpectedConditions.visibilityOfElementLocated(By.id("new-secret"))).getText())
                .startsWith("whsec_");
        By subscription = By.xpath("//section[@data-subscription][.//strong[text()='http://localhost:9/browser-hook']]");
        WebElement created = wait(browser).until(ExpectedConditions.presenceOfElementLocated(subscription));
        assertThat(created.getText()).contains("order.completed").doesNotContain("whsec_");
        created.findElement(By.xpath(".//button[text()='Deliveries']")).click();
        wait(browser).until(ExpectedConditions.textToBePresentInElement(created, "No deliveries yet."));
        created.findElement(By.xpath(".//button[text()='Delete']")).click();
        wait(browser).until(ExpectedConditions.numberOfElementsToBe(subscription, 0));
    }

    @Test
    void a_failed_delivery_is_redelivered_from_the_webhooks_page_by_an_operator_only() {
        // https to a loopback address is refused at once: the delivery fails on its first attempt, with no retry.
        JsonNode created = Json.MAPPER.readTree(http.post().uri("/api/v1/webhook-subscriptions")
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"url\": \"https://127.0.0.1:9/redeliver-hook\", \"events\": [\"order.cancelled\"]}")
                .exchange().expectStatus().isCreated().expectBody().returnResult().getResponseBody());
        String subscriptionId = created.get("subscription").get("id").asString();
        try {
            String orderId = waitingForApproval();
            http.post().uri("/api/v1/orders/" + orderId + "/cancel").contentType(MediaType.APPLICATION_JSON)
                    .bodyValue("{}").exchange().expectStatus().isOk();
            By subscription = By.cssSelector("section[data-subscription='" + subscriptionId + "']");
            By failedRow = By.xpath(".//tr[@data-delivery][.//span[contains(@class,'badge') and text()='failed']]");

            WebDriver viewer = signedIn(VIEWER);
            open(viewer, "/webhooks");
            WebElement seen = wait(viewer).until(ExpectedConditions.presenceOfElementLocated(subscription));
            assertThat(seen.findElement(By.cssSelector(".badge.health")).getText()).isEqualTo("ok");
            seen.findElement(By.xpath(".//button[text()='Deliveries']")).click();
            wait(viewer).until(ExpectedConditions.presenceOfNestedElementLocatedBy(seen, failedRow));
            assertThat(seen.findElements(By.xpath(".//button[text()='Redeliver']"))).isEmpty();

            WebDriver operator = signedIn(OPERATOR);
            open(operator, "/webhooks");
            WebElement section = wait(operator).until(ExpectedConditions.presenceOfElementLocated(subscription));
            section.findElement(By.xpath(".//button[text()='Deliveries']")).click();
            wait(operator).until(ExpectedConditions.presenceOfNestedElementLocatedBy(section, failedRow))
                    .findElement(By.xpath(".//button[text()='Redeliver']")).click();
            // The subscriber's answer is shown: here the address is refused again, the record's second attempt.
            WebElement answer = wait(operator).until(ExpectedConditions.presenceOfNestedElementLocatedBy(section,
                    By.cssSelector("[role=alert]")));
            assertThat(answer.getText()).matches("Redelivery of dlv_\\w+ failed: refused: .+, attempt 2\\.");
            wait(operator).until(ExpectedConditions.textToBePresentInElementLocated(
                    By.cssSelector("section[data-subscription='" + subscriptionId + "'] tr[data-delivery] td.num"),
                    "2"));
        } finally {
            http.delete().uri("/api/v1/webhook-subscriptions/" + subscriptionId).exchange().expectStatus().isOk();
        }
    }

    @Test
    void a_viewer_sees_no_decision_buttons_and_a_forced_call_is_refused() {
        String orderId = waitingForApproval();
        WebDriver browser = signedIn(VIEWER);
        open(browser, "/orders/" + orderId);
        wait(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("waits"),
                "Deciding needs the approver role"));
        assertThat(browser.findElements(By.cssSelector("button.approve, button.reject, #cancel-order, button.deliver")))
                .isEmpty();
        open(browser, "/approvals");
        wait(browser).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-order='" + orderId + "']")));
        assertThat(browser.findElements(By.cssSelector("button.approve"))).isEmpty();
        open(browser, "/team");
        wait(browser).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-person='" + VIEWER + "']")));
        assertThat(browser.findElements(By.id("create-token"))).isEmpty();

        JavascriptExecutor js = (JavascriptExecutor) browser;
        browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(15));
        Object socketAnswer = js.executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                const ws = new WebSocket(`ws://${location.host}/api/v1/orders/${arguments[0]}/socket`);
                ws.onmessage = (m) => { const d = JSON.parse(m.data); if (d.id === 7) { ws.close(); done(d.error || 'sent'); } };
                ws.onopen = () => ws.send(JSON.stringify({ id: 7, method: 'decide',
                    params: { nodeId: 'approval', decision: 'approved' } }));
                ws.onerror = () => done('socket failed');""", orderId);
        assertThat(socketAnswer).isEqualTo("This needs the Approver role.");
        Object restAnswer = js.executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                fetch(`/api/v1/orders/${arguments[0]}/approvals/approval`, { method: 'POST',
                    headers: { 'content-type': 'application/json' }, body: JSON.stringify({ decision: 'approved' }) })
                  .then((r) => done(r.status), () => done('fetch failed'));""", orderId);
        assertThat(((Number) restAnswer).intValue()).isEqualTo(403);
        assertThat(read(orderId).get("waits").size()).isEqualTo(1);
    }

    @Test
    void the_order_page_says_so_when_the_sign_in_has_ended() {
        String orderId = waitingForApproval();
        WebDriver browser = signedIn(APPROVER);
        open(browser, "/orders/" + orderId);
        wait(browser).until(ExpectedConditions.elementToBeClickable(By.id("chat-text")));
        // signed out elsewhere (another tab of the same browser): the session ends, the open socket does not know yet
        browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(15));
        ((JavascriptExecutor) browser).executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                fetch('/api/v1/auth/sign-out', { method: 'POST' }).then((r) => done(r.status), () => done(0));""");
        // the next call on the socket is refused and the socket closes with 4401
        browser.findElement(By.id("chat-text")).sendKeys("status?");
        browser.findElement(By.id("chat-send")).click();
        wait(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("[role=alert]"),
                "Your sign-in has ended"));
        assertThat(browser.findElement(By.id("live")).getText()).isEqualTo("Disconnected");
        assertThat(read(orderId).get("chat").size()).as("nothing was written").isZero();
    }

    @Test
    void two_browsers_on_one_order_see_each_others_decision() {
        String orderId = waitingForApproval();
        WebDriver approver = signedIn(APPROVER);
        WebDriver operator = signedIn(OPERATOR);
        open(approver, "/orders/" + orderId);
        open(operator, "/orders/" + orderId);
        for (WebDriver browser : List.of(approver, operator)) {
            wait(browser).until(ExpectedConditions.elementToBeClickable(By.cssSelector("[data-wait=approval] .reject")));
        }
        approver.findElement(By.id("note-approval")).sendKeys("not this quarter");
        approver.findElement(By.cssSelector("[data-wait=approval] .reject")).click();
        wait(approver).until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".undo-button")));
        for (WebDriver browser : List.of(operator, approver)) {
            wait(browser).until(ExpectedConditions.attributeToBe(By.cssSelector("svg.graph .node[data-node=approval]"),
                    "data-status", "succeeded"));
            wait(browser).until(ExpectedConditions.presenceOfElementLocated(By.id("no-waits")));
            wait(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("timeline"), APPROVER));
        }
        assertThat(read(orderId).get("nodes").get("approval").get("branches").get(0).asString()).isEqualTo("rejected");
    }

    @Test
    void a_push_while_someone_types_a_note_keeps_their_text_and_their_focus() {
        String orderId = waitingForApproval();
        WebDriver browser = signedIn(APPROVER);
        open(browser, "/orders/" + orderId);
        wait(browser).until(ExpectedConditions.elementToBeClickable(By.id("note-approval"))).sendKeys("within");

        // another socket on the order chats: every page on it re-renders from the pushed state
        browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(15));
        ((JavascriptExecutor) browser).executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                const ws = new WebSocket(`ws://${location.host}/api/v1/orders/${arguments[0]}/socket`);
                ws.onmessage = (m) => { if (JSON.parse(m.data).id === 1) { ws.close(); done(); } };
                ws.onopen = () => ws.send(JSON.stringify({ id: 1, method: 'chat', params: { text: 'status?' } }));
                ws.onerror = () => done();""", orderId);
        wait(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("chat-log"), "status?"));

        // the keys go wherever the focus is now, as a person's typing would
        browser.switchTo().activeElement().sendKeys(" budget");
        assertThat(browser.findElement(By.id("note-approval")).getDomProperty("value")).isEqualTo("within budget");
    }

    @Test
    void a_chat_proposal_is_confirmed_on_the_page_after_its_undo_window() {
        String orderId = waitingForApproval();
        WebDriver browser = signedIn(APPROVER);
        open(browser, "/orders/" + orderId);
        wait(browser).until(ExpectedConditions.elementToBeClickable(By.id("chat-text"))).sendKeys("please approve this");
        browser.findElement(By.id("chat-send")).click();
        By confirm = By.cssSelector("[data-proposal][data-status=open] .confirm-proposal");
        wait(browser).until(ExpectedConditions.elementToBeClickable(confirm));
        assertThat(browser.findElement(By.id("chat-log")).getText()).contains("please approve this");

        // undone: nothing is sent, the proposal stays open
        browser.findElement(confirm).click();
        click(browser, By.cssSelector(".undo-button"));
        wait(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("undo-tray"), "Nothing was sent"));
        await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(8))
                .until(() -> read(orderId).get("waits").size() == 1);

        // confirmed: after the undo window the ordinary decide is sent with the proposal's id
        click(browser, confirm);
        wait(browser).until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".undo-button")));
        assertThat(read(orderId).get("waits").size()).as("not sent during the undo window").isEqualTo(1);
        wait(browser).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("[data-proposal][data-status=confirmed]")));
        JsonNode decided = await().atMost(WAIT).until(() -> read(orderId),
                order -> order.get("nodes").get("approval").hasNonNull("output"));
        assertThat(decided.get("nodes").get("approval").get("output").get("decision").asString()).isEqualTo("approved");
        assertThat(decided.get("nodes").get("approval").get("output").get("by").asString()).isEqualTo(APPROVER);
    }

    @Test
    void a_decision_that_fails_during_an_outage_keeps_the_note_says_why_and_goes_through_on_retry() {
        String orderId = waitingForApproval();
        WebDriver browser = signedIn(APPROVER);
        withSwitchableSockets(browser);
        open(browser, "/orders/" + orderId);
        By approve = By.cssSelector("[data-wait=approval] .approve");
        wait(browser).until(ExpectedConditions.elementToBeClickable(By.id("note-approval"))).sendKeys("within budget");
        click(browser, approve);
        wait(browser).until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".undo-button")));

        // the connection drops during the undo window: nothing can be sent, and the page says so
        js(browser, "window.testSockets.goOffline()");
        wait(browser).until(ExpectedConditions.textToBe(By.id("live"), "Reconnecting…"));
        wait(browser).until(ExpectedConditions.attributeToBe(approve, "disabled", "true"));
        WebElement failure = wait(browser).until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#results [role=alert]")));
        assertThat(failure.getText()).contains("Approve “Approve order " + orderId, "not done", "Not connected");
        assertThat(browser.findElement(By.id("note-approval")).getDomProperty("value")).isEqualTo("within budget");
        assertThat(browser.findElement(By.cssSelector("#results button.retry")).isEnabled()).isFalse();
        assertThat(browser.findElement(approve).isEnabled()).isFalse();
        assertThat(read(orderId).get("waits").size()).as("nothing was decided").isEqualTo(1);

        // back online: Retry sends the same decision with the same note, and success shows once the server answered
        js(browser, "window.testSockets.goOnline()");
        wait(browser).until(ExpectedConditions.textToBe(By.id("live"), "Live"));
        click(browser, By.cssSelector("#results button.retry"));
        wait(browser).until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".undo-button")));
        wait(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.cssSelector("#results [role=status]"),
                "Approved “Approve order " + orderId));
        assertThat(browser.findElements(By.cssSelector("#results [role=alert]"))).isEmpty();
        JsonNode decision = await().atMost(WAIT).until(() -> read(orderId),
                order -> order.get("nodes").get("approval").hasNonNull("output")).get("nodes").get("approval").get("output");
        assertThat(decision.get("decision").asString()).isEqualTo("approved");
        assertThat(decision.get("note").asString()).isEqualTo("within budget");
    }

    @Test
    void the_orders_list_pages_through_every_order_with_true_counts() {
        String customer = "cus_paging_" + System.nanoTime();
        List<String> started = new ArrayList<>();
        for (int i = 0; i < 130; i++) {
            started.add(start("b2b_order", Map.of("customerId", customer,
                    "lines", List.of(line("WIDGET-1", 1, null)), "meta", Map.of("shipTo", "9 Quay Street"))));
        }
        WebDriver browser = signedIn(VIEWER);
        open(browser, "/orders?q=" + customer);
        wait(browser).until(ExpectedConditions.textToBe(By.id("page-range"), "1–50 of 130"));
        // the page says how far back it sees: ended orders are kept for ORDER_RETENTION (30 days by default)
        assertThat(browser.findElement(By.id("retention")).getText())
                .isEqualTo("Ended orders are listed for 30 days after their last change, then archived.");
        // the counts by status are of every matching order, not of the page on screen
        await().atMost(WAIT).ignoreException(StaleElementReferenceException.class)
                .untilAsserted(() -> assertThat(browser.findElements(By.cssSelector("#status-counts li strong"))
                        .stream().mapToInt(e -> Integer.parseInt(e.getText())).sum()).isEqualTo(130));

        List<String> seen = new ArrayList<>(rowIds(browser));
        click(browser, By.id("page-next"));
        wait(browser).until(ExpectedConditions.textToBe(By.id("page-range"), "51–100 of 130"));
        seen.addAll(rowIds(browser));
        click(browser, By.id("page-next"));
        wait(browser).until(ExpectedConditions.textToBe(By.id("page-range"), "101–130 of 130"));
        seen.addAll(rowIds(browser));
        assertThat(browser.findElement(By.id("page-next")).isEnabled()).as("the last page").isFalse();
        assertThat(seen).as("every order once, newest first").containsExactlyElementsOf(started.reversed());

        click(browser, By.id("page-prev"));
        wait(browser).until(ExpectedConditions.textToBe(By.id("page-range"), "51–100 of 130"));
        // one status on its own: its own count is the total
        select(browser, By.id("filter-status"), "waiting");
        wait(browser).until(ExpectedConditions.textMatches(By.id("page-range"), java.util.regex.Pattern.compile(
                "^1–\\d+ of \\d+$")));
        // the count and the range read in one script: the list redraws both on its refreshes and pushes
        String[] countAndRange = String.valueOf(js(browser, "return document.querySelector("
                + "'#status-counts li[data-status=waiting] strong').textContent + '|' "
                + "+ document.getElementById('page-range').textContent;")).split("\\|");
        assertThat(countAndRange[1]).endsWith(" of " + countAndRange[0]);

        // by last change, the oldest order comes first once it is the one that changed
        http.post().uri("/api/v1/orders/" + started.getFirst() + "/cancel").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{}").exchange().expectStatus().isOk();
        select(browser, By.id("filter-status"), "");
        select(browser, By.id("sort"), "updated");
        await().atMost(WAIT).untilAsserted(() -> assertThat(rowIds(browser)).first().isEqualTo(started.getFirst()));
        assertThat(js(browser, "return document.getElementById('page-range').textContent;")).isEqualTo("1–50 of 130");
    }

    @Test
    void an_escalated_approval_is_drawn_apart_from_an_approved_one_and_long_titles_wrap() {
        WebDriver browser = signedIn(VIEWER);
        browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(15));
        // the page's own drawing code, given an order whose first approval escalated and whose second was approved
        Object drawn = ((JavascriptExecutor) browser).executeAsyncScript("""
                const done = arguments[arguments.length - 1];
                import('/assets/graph.js').then(({ drawGraph }) => {
                  const node = (id, title) => ({ id, type: 'approval', title });
                  const state = {
                    flow: { graph: { id: 'g', nodes: [node('first', 'Approve the quarterly hardware budget for the '
                        + 'whole engineering department'), node('second', 'Director')],
                      edges: [{ id: 'e', from: 'first', to: 'second', branch: 'escalated' }] } },
                    nodes: { first: { status: 'succeeded', branches: ['escalated'] },
                             second: { status: 'succeeded', branches: ['approved'] } },
                    edges: { e: 'active' },
                  };
                  const svg = drawGraph(state, null, () => {});
                  document.body.append(svg);
                  const look = (id) => {
                    const g = svg.querySelector(`[data-node=${id}]`);
                    const rect = g.querySelector('rect');
                    const titles = [...g.querySelectorAll('text.node-title')];
                    return { outcome: g.getAttribute('data-outcome'), dash: getComputedStyle(rect).strokeDasharray,
                      fill: getComputedStyle(rect).fill, label: g.textContent,
                      titles: titles.map((t) => t.textContent),
                      fits: titles.every((t) => t.getComputedTextLength() <= rect.width.baseVal.value - 8) };
                  };
                  done(JSON.stringify({ first: look('first'), second: look('second') }));
                }, (e) => done(String(e)));""");
        JsonNode looks = Json.MAPPER.readTree(String.valueOf(drawn));
        JsonNode escalated = looks.get("first");
        JsonNode approved = looks.get("second");
        assertThat(escalated.get("outcome").asString()).isEqualTo("escalated");
        assertThat(approved.get("outcome").asString()).isEqualTo("approved");
        assertThat(escalated.get("label").asString()).contains("succeeded · escalated");
        assertThat(approved.get("label").asString()).contains("succeeded · approved");
        assertThat(escalated.get("dash").asString()).as("escalated is dashed").isNotEqualTo("none");
        assertThat(approved.get("dash").asString()).isEqualTo("none");
        assertThat(escalated.get("fill").asString()).isNotEqualTo(approved.get("fill").asString());
        // the long title takes two lines that fit the box, ending in an ellipsis, instead of one cut line
        assertThat(escalated.get("titles")).hasSize(2);
        assertThat(escalated.get("titles").get(0).asString()).isEqualTo("Approve the quarterly");
        assertThat(escalated.get("titles").get(1).asString()).endsWith("…");
        assertThat(escalated.get("fits").asBoolean()).isTrue();
    }

    @Test
    void the_inbox_goes_soonest_deadline_first_and_approves_several_under_one_undo() {
        String first = waitingForApproval();
        String second = waitingForApproval();
        WebDriver browser = signedIn(APPROVER);
        open(browser, "/approvals?assignee=manager");
        By firstRow = By.cssSelector("tr[data-order='" + first + "']");
        By secondRow = By.cssSelector("tr[data-order='" + second + "']");
        wait(browser).until(ExpectedConditions.presenceOfElementLocated(secondRow));
        List<String> order = rowIds(browser);
        assertThat(order.indexOf(first)).as("the older approval is due sooner").isLessThan(order.indexOf(second));
        assertThat(browser.findElement(firstRow).getText()).containsPattern("\\d+ (d|h|min).* left");
        assertThat(browser.findElement(firstRow).getText()).contains("manager");

        browser.findElement(firstRow).findElement(By.cssSelector("input.pick")).click();
        wait(browser).until(ExpectedConditions.elementToBeClickable(secondRow))
                .findElement(By.cssSelector("input.pick")).click();
        wait(browser).until(ExpectedConditions.textToBe(By.id("approve-selected"), "Approve selected (2)"));
        browser.findElement(By.id("approve-selected")).click();
        wait(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("undo-tray"),
                "Approve 2 approvals"));
        assertThat(browser.findElements(By.cssSelector(".undo"))).as("one undo for both").hasSize(1);
        assertThat(read(first).get("waits").size()).as("not sent during the undo window").isEqualTo(1);
        wait(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("inbox-summary"),
                "Approved 2 of 2"));
        for (String orderId : List.of(first, second)) {
            JsonNode decided = await().atMost(WAIT).until(() -> read(orderId),
                    o -> o.get("nodes").get("approval").hasNonNull("output"));
            assertThat(decided.get("nodes").get("approval").get("output").get("by").asString()).isEqualTo(APPROVER);
        }
        wait(browser).until(ExpectedConditions.numberOfElementsToBe(firstRow, 0));
    }

    @Test
    void after_a_cancel_the_graph_shows_the_unfinished_nodes_skipped() {
        String orderId = waitingForApproval();
        http.post().uri("/api/v1/orders/" + orderId + "/cancel").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"reason\": \"Duplicate\"}").exchange().expectStatus().isOk();
        WebDriver browser = signedIn(VIEWER);
        open(browser, "/orders/" + orderId);
        wait(browser).until(ExpectedConditions.attributeToBe(By.id("order-status"), "data-status", "cancelled"));
        wait(browser).until(ExpectedConditions.attributeToBe(By.cssSelector("svg.graph .node[data-node=approval]"),
                "data-status", "skipped"));
        List<String> statuses = browser.findElements(By.cssSelector("svg.graph .node")).stream()
                .map(node -> node.getDomAttribute("data-status")).toList();
        assertThat(statuses).contains("succeeded", "skipped").doesNotContain("pending", "waiting", "running");
        assertThat(browser.findElement(By.cssSelector("svg.graph .node[data-node=approval]")).getText())
                .contains("skipped");
    }

    @Test
    void on_a_phone_the_inbox_is_cards_with_approve_and_reject_in_reach_and_the_undo_bar_fits() {
        String orderId = waitingForApproval();
        WebDriver browser = signedIn(APPROVER);
        browser.manage().window().setSize(new Dimension(375, 812));
        open(browser, "/approvals");
        By card = By.cssSelector("tr[data-order='" + orderId + "']");
        WebElement approve = wait(browser).until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("tr[data-order='" + orderId + "'] button.approve")));
        WebElement reject = browser.findElement(By.cssSelector("tr[data-order='" + orderId + "'] button.reject"));
        int width = ((Number) js(browser, "return document.documentElement.clientWidth")).intValue();
        for (WebElement button : List.of(approve, reject)) {
            assertThat(button.isDisplayed()).isTrue();
            assertThat(button.getRect().getX() + button.getRect().getWidth()).isLessThanOrEqualTo(width);
        }
        assertThat(browser.findElement(card).getCssValue("display")).as("a card, not a table row").isEqualTo("block");
        assertNoSidewaysScrolling(browser, "the inbox");
        approve.click();
        WebElement bar = wait(browser).until(ExpectedConditions.visibilityOfElementLocated(By.cssSelector(".undo")));
        assertThat(bar.getRect().getX()).isGreaterThanOrEqualTo(0);
        assertThat(bar.getRect().getX() + bar.getRect().getWidth()).isLessThanOrEqualTo(width);
        WebElement undo = bar.findElement(By.cssSelector(".undo-button"));
        assertThat(undo.getRect().getX() + undo.getRect().getWidth()).isLessThanOrEqualTo(width);
        undo.click();
        wait(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("undo-tray"), "Nothing was sent"));
        pageScreenshot(browser, "approvals-phone");
    }

    @Test
    void a_role_changes_only_on_save() {
        WebDriver browser = signedIn(OPERATOR);
        open(browser, "/team");
        By row = By.cssSelector("tr[data-person='" + VIEWER + "']");
        WebElement select = wait(browser).until(ExpectedConditions.presenceOfElementLocated(row))
                .findElement(By.cssSelector("select"));
        select.sendKeys(org.openqa.selenium.Keys.ARROW_DOWN);
        wait(browser).until(ExpectedConditions.textToBePresentInElementLocated(row, "Not saved"));
        assertThat(role(VIEWER)).as("an arrow key changes nothing").isEqualTo("viewer");
        new org.openqa.selenium.support.ui.Select(browser.findElement(row).findElement(By.cssSelector("select")))
                .selectByValue("viewer");
        wait(browser).until(ExpectedConditions.attributeToBe(
                browser.findElement(row).findElement(By.cssSelector("button.save-role")), "disabled", "true"));
        assertThat(role(VIEWER)).isEqualTo("viewer");
    }

    @Test
    @Order(Integer.MAX_VALUE) // last, so the pages show the orders the other tests made
    void every_page_renders_for_an_operator_on_a_laptop_and_a_phone() {
        String waiting = waitingForApproval();
        String b2b = waitingForPayment();
        http.post().uri("/api/v1/webhook-subscriptions").contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"url\": \"http://localhost:9/hook\", \"events\": [\"order.paid\", \"order.completed\"]}")
                .exchange().expectStatus().isCreated();
        WebDriver browser = signedIn(OPERATOR);
        record Page(String path, String name, By ready) {
        }
        List<Page> pages = List.of(
                new Page("/orders", "orders", By.cssSelector("tr[data-order]")),
                new Page("/orders/" + waiting, "order", By.cssSelector("[data-wait=approval] .approve")),
                new Page("/approvals", "approvals", By.cssSelector("tr[data-order='" + waiting + "']")),
                new Page("/back-office", "back-office", By.cssSelector("tr[data-order='" + b2b + "']")),
                new Page("/webhooks", "webhooks", By.cssSelector("[data-subscription]")),
                new Page("/team", "team", By.cssSelector("tr[data-person]")),
                new Page("/flows", "flows", By.cssSelector("tr[data-flow=b2b_order]")),
                new Page("/incidents", "incidents", LOADED_INCIDENTS),
                new Page("/batches", "batches", LOADED_BATCHES));
        for (Page page : pages) {
            open(browser, page.path());
            wait(browser).until(ExpectedConditions.presenceOfElementLocated(page.ready()));
            if (page.name().equals("order")) { // with the chat's answer and a proposal to confirm
                browser.findElement(By.id("chat-text")).sendKeys("approve it");
                browser.findElement(By.id("chat-send")).click();
                wait(browser).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("[data-proposal]")));
                // the page draws again on every push (the chat's answer may still come): a node found just before
                // one is gone, so the click is tried again on the node as drawn then (a selection stays selected)
                wait(browser).until(d -> {
                    d.findElement(By.cssSelector("svg.graph .node[data-node=policy]")).click();
                    return d.findElement(By.id("node-details")).getText().contains("Output");
                });
            }
            assertThat(browser.findElements(By.cssSelector("[role=alert]"))).as(page.path()).isEmpty();
            if (page.name().equals("incidents") || page.name().equals("batches")) {
                // nothing of the page's own code shows through as text
                assertThat(browser.findElement(By.tagName("main")).getText()).doesNotContain("null", "undefined");
            }
            // the whole page, up to a height a reader can take in
            Number height = (Number) ((JavascriptExecutor) browser).executeScript(
                    "return document.documentElement.scrollHeight");
            browser.manage().window().setSize(new Dimension(1280, Math.min(2200, Math.max(800, height.intValue() + 20))));
            ((JavascriptExecutor) browser).executeScript("window.scrollTo(0, 0)");
            pageScreenshot(browser, page.name());
            browser.manage().window().setSize(new Dimension(1280, 1000));
        }
        browser.manage().window().setSize(new Dimension(375, 812));
        open(browser, "/orders/" + waiting);
        wait(browser).until(ExpectedConditions.elementToBeClickable(By.cssSelector("[data-wait=approval] .approve")));
        assertNoSidewaysScrolling(browser, "the order page");
        pageScreenshot(browser, "order-phone");
        open(browser, "/system");
        wait(browser).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-service=gateway]")));
        pageScreenshot(browser, "system-phone");
        open(browser, "/incidents");
        wait(browser).until(ExpectedConditions.presenceOfElementLocated(LOADED_INCIDENTS));
        pageScreenshot(browser, "incidents-phone");
        open(browser, "/back-office");
        wait(browser).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("tr[data-order='" + b2b + "']")));
        pageScreenshot(browser, "back-office-phone");
        open(browser, "/orders/new");
        wait(browser).until(ExpectedConditions.elementToBeClickable(By.id("start-flow")));
        pageScreenshot(browser, "start-phone");

        WebDriver signedOut = browser();
        open(signedOut, "/sign-in");
        wait(signedOut).until(ExpectedConditions.visibilityOfElementLocated(By.id("password")));
        pageScreenshot(signedOut, "sign-in");
    }

    // ---- the system -----------------------------------------------------------------------------------------------

    private static void addPerson(String email, String name, String role) {
        http.post().uri("/api/v1/team/people").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("email", email, "name", name, "role", role, "password", PEOPLE_PASSWORD))
                .exchange().expectStatus().isCreated();
    }

    static Map<String, Object> line(String sku, int qty, Double unitPrice) {
        return unitPrice == null ? Map.of("sku", sku, "qty", qty) : Map.of("sku", sku, "qty", qty, "unitPrice", unitPrice);
    }

    static String start(String flow, Map<String, Object> input) {
        Map<String, Object> fullInput = new java.util.HashMap<>(input);
        fullInput.put("type", flow);
        fullInput.putIfAbsent("customerId", "cus_browser");
        return Json.MAPPER.readTree(http.post().uri("/api/v1/orders").contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("flowId", flow, "input", fullInput)).exchange().expectStatus().isCreated()
                .expectBody().returnResult().getResponseBody()).get("orderId").asString();
    }

    /** A purchase request over 1,000, waiting at its manager's approval (node "approval"). */
    static String waitingForApproval() {
        String orderId = start("purchase_request", Map.of("lines", List.of(line("LAPTOP-14", 2, null)),
                "meta", Map.of("shipTo", "HQ, 2nd floor")));
        await().atMost(WAIT).until(() -> read(orderId).get("waits").size() == 1);
        return orderId;
    }

    /** A B2B order waiting for {@code payment.received}. */
    static String waitingForPayment() {
        String orderId = start("b2b_order", Map.of("lines", List.of(line("WIDGET-1", 4, null)),
                "meta", Map.of("shipTo", "9 Quay Street, Galway")));
        await().atMost(WAIT).until(() -> read(orderId).get("waits").size() == 1);
        return orderId;
    }

    /** The broker of the system the browser tests run on, for a test that writes a record itself. */
    static String bootstrapServers() {
        return system.bootstrapServers();
    }

    static JsonNode read(String orderId) {
        return Json.MAPPER.readTree(http.get().uri("/api/v1/orders/" + orderId).exchange().expectStatus().isOk()
                .expectBody().returnResult().getResponseBody());
    }

    // ---- browsers -------------------------------------------------------------------------------------------------

    /**
     * Lets the test cut the page's order socket: every WebSocket the page opens is recorded, {@code goOffline()} closes
     * them and points new ones at a closed port (so reconnecting fails), {@code goOnline()} lets them through again.
     * Set before the page loads, on every document the browser opens from then on.
     */
    private static void withSwitchableSockets(WebDriver browser) {
        onEveryDocument(browser, """
                (() => {
                  const Native = window.WebSocket;
                  const sockets = [];
                  let offline = false;
                  window.WebSocket = class extends Native {
                    constructor(url, protocols) {
                      super(offline ? 'ws://127.0.0.1:9/offline' : url, protocols);
                      sockets.push(this);
                    }
                  };
                  window.testSockets = {
                    goOffline() { offline = true; sockets.forEach((s) => s.close()); },
                    goOnline() { offline = false; },
                  };
                })();""");
    }

    static Object js(WebDriver browser, String script, Object... arguments) {
        return ((JavascriptExecutor) browser).executeScript(script, arguments);
    }

    /**
     * Asserts that the page is no wider than the window. When it is, the description names the elements whose box or
     * own text reaches beyond the window's width (tag, id, class, right edge in px, start of text), leaving out those
     * clipped by a box that scrolls or hides what overflows it, so a failure says which content is too wide.
     */
    static void assertNoSidewaysScrolling(WebDriver browser, String what) {
        @SuppressWarnings("unchecked")
        Map<String, Object> seen = (Map<String, Object>) js(browser, """
                const root = document.documentElement;
                const width = root.clientWidth;
                const clipped = (e) => {
                  for (let p = e.parentElement; p && p !== document.body && p !== root; p = p.parentElement) {
                    if (getComputedStyle(p).overflowX !== 'visible') return true;
                  }
                  return false;
                };
                // an element's right edge, or its own text's where the text runs past the box (a word with no break)
                const right = (e) => {
                  let edge = e.getBoundingClientRect().right;
                  for (const n of e.childNodes) {
                    if (n.nodeType !== Node.TEXT_NODE || !n.data.trim()) continue;
                    const range = document.createRange();
                    range.selectNodeContents(n);
                    edge = Math.max(edge, range.getBoundingClientRect().right);
                  }
                  return edge + window.scrollX;
                };
                const wide = [...document.body.querySelectorAll('*')]
                  .filter((e) => e.getClientRects().length > 0)
                  .map((e) => [e, right(e)])
                  .filter(([e, right]) => right > width && !clipped(e))
                  .map(([e, right]) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '')
                    + (typeof e.className === 'string' && e.className.trim()
                      ? '.' + e.className.trim().split(/\\s+/).join('.') : '')
                    + ' right=' + right.toFixed(1) + ' "'
                    + (e.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 60) + '"');
                return { overflow: root.scrollWidth - width, width: width, wide: wide.join('\\n') };""");
        assertThat(((Number) seen.get("overflow")).intValue())
                .as("%s: no sideways scrolling at %s px; beyond the window:%n%s", what, seen.get("width"),
                        seen.get("wide"))
                .isLessThanOrEqualTo(0);
    }

    /**
     * The order ids of the rows on screen, top to bottom, read in one script: the list redraws on its own refreshes,
     * and rows found first and read one by one afterwards could be gone by then (a stale element).
     */
    @SuppressWarnings("unchecked")
    static List<String> rowIds(WebDriver browser) {
        return List.copyOf((List<String>) js(browser,
                "return [...document.querySelectorAll('tr[data-order]')].map(row => row.dataset.order);"));
    }

    /** A person's role as the API answers it. */
    private static String role(String email) {
        JsonNode people = Json.MAPPER.readTree(http.get().uri("/api/v1/team/people").exchange().expectStatus().isOk()
                .expectBody().returnResult().getResponseBody()).get("people");
        for (JsonNode person : people) {
            if (person.get("email").asString().equals(email)) {
                return person.get("role").asString();
            }
        }
        throw new AssertionError("No person " + email);
    }

    /** A new headless Chromium with its own profile (so its own session), from the system's packages. */
    static WebDriver browser() {
        WebDriver driver = RefindingBrowser.chromium();
        browsers.add(driver);
        return driver;
    }

    /** Runs {@code source} in every document {@code browser} opens from now on, before the page's own scripts. */
    static void onEveryDocument(WebDriver browser, String source) {
        ((HasCdp) browser).executeCdpCommand("Page.addScriptToEvaluateOnNewDocument", Map.of("source", source));
    }

    static WebDriver signedIn(String email) {
        WebDriver browser = browser();
        open(browser, "/sign-in");
        wait(browser).until(ExpectedConditions.visibilityOfElementLocated(By.id("email"))).sendKeys(email);
        browser.findElement(By.id("password")).sendKeys(PEOPLE_PASSWORD);
        browser.findElement(By.id("sign-in")).click();
        wait(browser).until(ExpectedConditions.presenceOfElementLocated(By.id("my-role")));
        return browser;
    }

    static void open(WebDriver browser, String path) {
        browser.get(base + path);
    }

    /**
     * Clicks what {@code locator} finds, finding it again when the page redrew it between the find and the click (a
     * list redraws on its refreshes and on every push of an order on it).
     */
    static void click(WebDriver browser, By locator) {
        wait(browser).until(driver -> {
            WebElement element = driver.findElement(locator);
            if (!element.isDisplayed() || !element.isEnabled()) {
                return false;
            }
            element.click();
            return true;
        });
    }

    /** Chooses {@code value} in the select {@code locator} finds, finding it again as {@link #click} does. */
    static void select(WebDriver browser, By locator, String value) {
        wait(browser).until(driver -> {
            new Select(driver.findElement(locator)).selectByValue(value);
            return true;
        });
    }

    /** An explicit wait that looks again when the page re-rendered under it (the order page does on every push). */
    static WebDriverWait wait(WebDriver browser) {
        WebDriverWait wait = new WebDriverWait(browser, WAIT);
        wait.ignoring(StaleElementReferenceException.class);
        return wait;
    }

    static void pageScreenshot(WebDriver browser, String name) {
        save(browser, Path.of("target", "page-screenshots", name + ".png"));
    }

    private static void save(WebDriver browser, Path file) {
        try {
            Files.createDirectories(file.getParent());
            Files.write(file, ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * What every dashboard browser test class runs under: one standalone system with this class's people
     * ({@link #start}), started by the first dashboard class of the JVM and kept for the next ones until an end-to-end
     * class takes its place ({@link StandingSystem}) or the run ends (a start costs more than most classes' tests;
     * each test works on orders and browsers of its own), the browsers each test opened closed after it, and
     * screenshots of them on failure.
     */
    static final class OnSharedSystem extends ScreenshotOnFailure implements BeforeAllCallback, AfterEachCallback {

        @Override
        public void beforeAll(ExtensionContext context) {
            assumeChromium();
            StandingSystem.take(context, OnSharedSystem.class, AutoCloseable.class, () -> {
                start();
                return DashboardBrowserTest::stop;
            });
        }

        @Override
        public void afterEach(ExtensionContext context) {
            browsers.forEach(WebDriver::quit);
            browsers.clear();
        }
    }

    /** A failed test leaves a screenshot of each of its browsers in {@code target/screenshots/}. */
    static class ScreenshotOnFailure implements AfterTestExecutionCallback {

        @Override
        public void afterTestExecution(ExtensionContext context) {
            if (context.getExecutionException().isEmpty()) {
                return;
            }
            List<WebDriver> open = new ArrayList<>(browsers);
            for (int i = 0; i < open.size(); i++) {
                try {
                    save(open.get(i), Path.of("target", "screenshots",
                            context.getRequiredTestMethod().getName() + "-" + (i + 1) + ".png"));
                } catch (RuntimeException e) {
                    // a browser that died leaves no screenshot; the test's own failure is what matters
                }
            }
        }
    }
}

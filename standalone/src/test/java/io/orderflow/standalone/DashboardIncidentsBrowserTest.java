package io.orderflow.standalone;

import static io.orderflow.standalone.DashboardBrowserTest.OPERATOR;
import static io.orderflow.standalone.DashboardBrowserTest.WAIT;
import static io.orderflow.standalone.DashboardBrowserTest.open;
import static io.orderflow.standalone.DashboardBrowserTest.read;
import static io.orderflow.standalone.DashboardBrowserTest.signedIn;
import static io.orderflow.standalone.DashboardBrowserTest.waitingForPayment;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.schemas.json.Json;
import io.orderflow.schemas.topics.Topics;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The Incidents page in Chromium, on a standalone system set up as {@link DashboardBrowserTest}'s: an operator finds
 * the order that was set aside from its page, sees the incident (order, cause, the record's topic and offset) and
 * dismisses it with a note.
 */
@ExtendWith(DashboardBrowserTest.OnSharedSystem.class)
class DashboardIncidentsBrowserTest {

    private static final String CAUSE = "A node detail report names no node";

    private static WebDriverWait waitOn(WebDriver browser) {
        return DashboardBrowserTest.wait(browser);
    }

    @Test
    void an_operator_follows_the_order_to_its_incident_and_dismisses_it_with_a_note() {
        String orderId = waitingForPayment();
        RecordMetadata poisoned = poison(orderId);
        await().atMost(WAIT).until(() -> read(orderId).get("status").asString().equals("failed"));

        // the order page links to the order's incidents
        WebDriver browser = signedIn(OPERATOR);
        open(browser, "/orders/" + orderId);
        DashboardBrowserTest.click(browser, By.id("order-incidents"));
        waitOn(browser).until(ExpectedConditions.urlContains("/incidents?order=" + orderId));

        By row = By.cssSelector("tr[data-incident^='" + orderId + ":']");
        WebElement incident = waitOn(browser).until(ExpectedConditions.visibilityOfElementLocated(row));
        assertThat(incident.getDomAttribute("data-status")).isEqualTo("open");
        assertThat(incident.findElement(By.cssSelector("td[data-label=Order] a")).getText()).isEqualTo(orderId);
        assertThat(incident.findElement(By.className("incident-cause")).getText()).contains(CAUSE);
        assertThat(incident.findElement(By.className("incident-record")).getText()).isEqualTo(
                Topics.RUN_REPORTS.name() + " partition " + poisoned.partition() + " offset " + poisoned.offset());
        assertThat(incident.findElement(By.className("incident-status")).getText()).isEqualTo("open");

        // a dismissal needs a note
        incident.findElement(By.className("incident-dismiss")).click();
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("incidents-status"), "A dismissal needs a note."));
        assertThat(browser.findElement(row).getDomAttribute("data-status")).isEqualTo("open");

        browser.findElement(row).findElement(By.className("incident-note")).sendKeys("refunded by hand");
        browser.findElement(row).findElement(By.className("incident-dismiss")).click();
        waitOn(browser).until(ExpectedConditions.textToBe(By.id("incidents-status"),
                "Incident on " + orderId + " dismissed."));
        waitOn(browser).until(ExpectedConditions.attributeToBe(row, "data-status", "dismissed"));
        WebElement dismissed = browser.findElement(row);
        assertThat(dismissed.findElement(By.className("incident-status")).getText()).isEqualTo("dismissed");
        assertThat(dismissed.findElement(By.cssSelector("li[data-step=dismissed]")).getText())
                .contains("dismissed by " + OPERATOR + ": refunded by hand");
        assertThat(dismissed.findElements(By.className("incident-retry"))).as("no actions once dismissed").isEmpty();

        // the order's timeline says who dismissed it and why
        open(browser, "/orders/" + orderId);
        waitOn(browser).until(ExpectedConditions.textToBePresentInElementLocated(By.id("timeline"),
                "Incident dismissed by " + OPERATOR + ": refunded by hand"));
    }

    /** A run report the order's agent cannot apply: a node detail that names no node. */
    private static RecordMetadata poison(String orderId) {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, DashboardBrowserTest.bootstrapServers()),
                new StringSerializer(), new StringSerializer())) {
            return producer.send(new ProducerRecord<>(Topics.RUN_REPORTS.name(), orderId, Json.write(Map.of(
                    "type", "node_detail", "orderId", orderId, "instanceId", orderId + ".1")))).get();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}

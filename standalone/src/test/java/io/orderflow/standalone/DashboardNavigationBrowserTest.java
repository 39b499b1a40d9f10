package io.orderflow.standalone;

import static io.orderflow.standalone.DashboardBrowserTest.OPERATOR;
import static io.orderflow.standalone.DashboardBrowserTest.VIEWER;
import static io.orderflow.standalone.DashboardBrowserTest.js;
import static io.orderflow.standalone.DashboardBrowserTest.open;
import static io.orderflow.standalone.DashboardBrowserTest.signedIn;
import static io.orderflow.standalone.DashboardBrowserTest.waitingForPayment;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The dashboard's navigation by role and the orders list's ids in Chromium, on a standalone system of its own set up
 * as {@link DashboardBrowserTest}'s.
 */
@ExtendWith(DashboardBrowserTest.OnSharedSystem.class)
class DashboardNavigationBrowserTest {

    private static WebDriverWait waitOn(WebDriver browser) {
        return DashboardBrowserTest.wait(browser);
    }

    @SuppressWarnings("unchecked")
    private static List<String> navigation(WebDriver browser) {
        waitOn(browser).until(ExpectedConditions.presenceOfElementLocated(By.cssSelector("#nav a")));
        return List.copyOf((List<String>) js(browser,
                "return [...document.querySelectorAll('#nav a')].map(a => a.textContent);"));
    }

    @Test
    void a_viewer_is_not_offered_team_audit_or_webhooks_and_an_operator_is() {
        WebDriver viewer = signedIn(VIEWER);
        open(viewer, "/orders");
        assertThat(navigation(viewer)).containsExactly("Orders", "Approvals", "Back office", "Flows");
        WebDriver operator = signedIn(OPERATOR);
        open(operator, "/orders");
        assertThat(navigation(operator)).containsExactly("Orders", "Approvals", "Back office", "Webhooks", "Team",
                "Audit", "Flows", "System", "Incidents", "Batches");
    }

    @Test
    void an_order_id_stays_on_one_line_in_the_orders_list_at_900_px() {
        String orderId = waitingForPayment();
        WebDriver browser = signedIn(OPERATOR);
        browser.manage().window().setSize(new Dimension(900, 1000));
        open(browser, "/orders");
        By id = By.cssSelector("tr[data-order='" + orderId + "'] a.order-id");
        waitOn(browser).until(ExpectedConditions.visibilityOfElementLocated(id));
        assertThat(((Number) js(browser, "return document.querySelector(arguments[0]).getClientRects().length;",
                "tr[data-order='" + orderId + "'] a.order-id")).intValue()).as("lines the order id takes").isEqualTo(1);
    }
}

package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The browser tests' elements survive the page redrawing them between a find and an action, as the dashboard's lists
 * do on every push; an element that is gone for good still fails the test. No system is needed: the page is a
 * {@code data:} document whose list the test redraws itself.
 */
class RefindingBrowserTest {

    private static final String PAGE = """
            <ul id="list"><li data-order="o1"><button class="approve">Approve</button></li></ul>
            <p id="clicks">0</p>
            <script>
              document.addEventListener('click', (e) => {
                if (e.target.matches('.approve')) {
                  const clicks = document.getElementById('clicks');
                  clicks.textContent = String(Number(clicks.textContent) + 1);
                }
              });
              window.redraw = (label) => { document.getElementById('list').innerHTML =
                  `<li data-order="o1"><button class="approve">${label}</button></li>`; };
            </script>""";

    private WebDriver browser;

    @BeforeEach
    void openPage() {
        Assumptions.assumeTrue(RefindingBrowser.installed() || "true".equalsIgnoreCase(System.getenv("CI")),
                "Chromium is not installed");
        browser = RefindingBrowser.chromium();
        browser.get("data:text/html;charset=utf-8," + URLEncoder.encode(PAGE, StandardCharsets.UTF_8)
                .replace("+", "%20"));
    }

    @AfterEach
    void closeBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void an_element_redrawn_after_it_was_found_is_found_again_for_the_click_and_the_read() {
        WebElement row = browser.findElement(By.cssSelector("li[data-order=o1]"));
        WebElement approve = row.findElement(By.cssSelector("button.approve"));

        ((JavascriptExecutor) browser).executeScript("redraw('Approve now')");
        approve.click();

        assertThat(browser.findElement(By.id("clicks")).getText()).as("one click, on the redrawn button").isEqualTo("1");
        assertThat(approve.getText()).isEqualTo("Approve now");
        ((JavascriptExecutor) browser).executeScript("redraw('Approve later')");
        assertThat(row.getText()).as("the row, found again through its own locator").isEqualTo("Approve later");
    }

    @Test
    void an_element_removed_for_good_still_fails() {
        WebElement approve = browser.findElement(By.cssSelector("button.approve"));

        ((JavascriptExecutor) browser).executeScript("document.getElementById('list').innerHTML = ''");

        assertThatThrownBy(approve::click).isInstanceOf(StaleElementReferenceException.class);
        assertThat(browser.findElement(By.id("clicks")).getText()).isEqualTo("0");
    }
}

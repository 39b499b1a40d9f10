package io.orderflow.standalone;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.openqa.selenium.By;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.SearchContext;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.decorators.Decorated;
import org.openqa.selenium.support.decorators.WebDriverDecorator;

/**
 * A browser whose elements find themselves again when the page redrew them. The dashboard redraws a list on every
 * refresh and on every push of an order on it, so an element a test found a moment ago can be gone by the time the test
 * clicks it or reads it ({@link StaleElementReferenceException}). Here every element remembers where it was found (its
 * parent and locator); an action that meets a stale element finds it again the same way and is tried once more, for up
 * to {@link #PATIENCE} (a list that empties before its fetch answers is waited out the same way). An action that failed as stale did not happen, so trying it again cannot do it twice.
 */
final class RefindingBrowser extends WebDriverDecorator<WebDriver> {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Duration PATIENCE = Duration.ofSeconds(10);

    /** Whether the system's Chromium and its driver are installed. */
    static boolean installed() {
        return Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
    }

    /** A new headless Chromium with its own profile (so its own session), from the system's packages. */
    static WebDriver chromium() {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,1000",
                "--lang=en-US");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(new File(CHROMEDRIVER.toString())).usingAnyFreePort().build();
        return new RefindingBrowser().decorate(new ChromeDriver(service, options));
    }

    @Override
    public Object call(Decorated<?> target, Method method, Object[] args) throws Throwable {
        if (method.getName().equals("findElement") && args != null && args.length == 1 && args[0] instanceof By by) {
            WebElement found = (WebElement) method.invoke(target.getOriginal(), args);
            return createProxy(new Located(found, target, by, this), WebElement.class);
        }
        return super.call(target, method, args);
    }

    @Override
    public Object onError(Decorated<?> target, Method method, Object[] args, InvocationTargetException failure)
            throws Throwable {
        if (!(failure.getTargetException() instanceof StaleElementReferenceException stale)
                || !(target instanceof Located located)) {
            throw failure.getTargetException();
        }
        Instant giveUp = Instant.now().plus(PATIENCE);
        while (true) {
            try {
                located.findAgain();
                return call(target, method, args);
            } catch (InvocationTargetException again) {
                if (!(again.getTargetException() instanceof StaleElementReferenceException)
                        || Instant.now().isAfter(giveUp)) {
                    throw again.getTargetException();
                }
            } catch (StaleElementReferenceException | NoSuchElementException notBackYet) {
                if (Instant.now().isAfter(giveUp)) {
                    throw stale;
                }
            }
        }
    }

    /** An element with the way it was found: from {@code parent} (the page or another element) by {@code by}. */
    private static final class Located implements Decorated<WebElement> {

        private volatile WebElement current;
        private final Decorated<?> parent;
        private final By by;
        private final RefindingBrowser decorator;

        Located(WebElement current, Decorated<?> parent, By by, RefindingBrowser decorator) {
            this.current = current;
            this.parent = parent;
            this.by = by;
            this.decorator = decorator;
        }

        void findAgain() {
            try {
                current = ((SearchContext) parent.getOriginal()).findElement(by);
            } catch (StaleElementReferenceException parentRedrawn) {
                if (!(parent instanceof Located located)) {
                    throw parentRedrawn;
                }
                located.findAgain();
                current = ((SearchContext) parent.getOriginal()).findElement(by);
            }
        }

        @Override
        public WebElement getOriginal() {
            return current;
        }

        @Override
        public WebDriverDecorator<?> getDecorator() {
            return decorator;
        }

        @Override
        public void beforeCall(Method method, Object[] args) {
            decorator.beforeCall(this, method, args);
        }

        @Override
        public Object call(Method method, Object[] args) throws Throwable {
            return decorator.call(this, method, args);
        }

        @Override
        public void afterCall(Method method, Object result, Object[] args) {
            decorator.afterCall(this, method, args, result);
        }

        @Override
        public Object onError(Method method, InvocationTargetException failure, Object[] args) throws Throwable {
            return decorator.onError(this, method, args, failure);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Decorated<?> decorated ? current.equals(decorated.getOriginal())
                    : current.equals(other);
        }

        @Override
        public int hashCode() {
            return current.hashCode();
        }

        @Override
        public String toString() {
            return by + " (" + current + ")";
        }
    }
}

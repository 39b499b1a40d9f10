package io.orderflow.standalone;

import io.orderflow.runner.connectors.ConnectorCall;
import io.orderflow.runner.connectors.Connectors;
import io.orderflow.runner.connectors.PaymentConnector;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * For a system run in a child JVM on the test classpath with {@code -Dheld.payments.dir=DIR} (registered for every
 * context in the test resources' {@code META-INF/spring.factories}; without the property it does nothing): the
 * flow-runner's payment authorizations are held one at a time, in the stream thread
 * that runs the node, so the test decides the moment the JVM dies. Call {@code k} (from 1) writes {@code DIR/held-k}
 * with its order id and waits until {@code DIR/release-k} exists, then authorizes as the mock does. A JVM without the
 * property runs as the run command does.
 */
public final class HeldPayments implements ApplicationContextInitializer<ConfigurableApplicationContext> {

    static final String DIR_PROPERTY = "held.payments.dir";

    @Override
    public void initialize(ConfigurableApplicationContext context) {
        String dir = System.getProperty(DIR_PROPERTY);
        if (dir == null) {
            return;
        }
        context.getBeanFactory().addBeanPostProcessor(new BeanPostProcessor() {
            @Override
            public Object postProcessAfterInitialization(Object bean, String name) {
                return bean instanceof Connectors connectors
                        ? new Connectors(new Held(connectors.payment(), Path.of(dir)), connectors.inventory(),
                        connectors.shipping(), connectors.invoicing())
                        : bean;
            }
        });
    }

    private static final class Held implements PaymentConnector {

        private final PaymentConnector payment;
        private final Path dir;
        private final AtomicInteger calls = new AtomicInteger();

        Held(PaymentConnector payment, Path dir) {
            this.payment = payment;
            this.dir = dir;
        }

        @Override
        public Result authorize(ConnectorCall call, BigDecimal amount, String currency) {
            int k = calls.incrementAndGet();
            try {
                Files.writeString(dir.resolve("held-" + k), call.orderId());
                while (!Files.exists(dir.resolve("release-" + k))) {
                    Thread.sleep(20);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return payment.authorize(call, amount, currency);
        }

        @Override
        public Result capture(ConnectorCall call, String authorizationId) {
            return payment.capture(call, authorizationId);
        }

        @Override
        public void voidAuthorization(ConnectorCall call, String authorizationId) {
            payment.voidAuthorization(call, authorizationId);
        }

        @Override
        public Result refund(ConnectorCall call, String paymentId, BigDecimal amount, String currency) {
            return payment.refund(call, paymentId, amount, currency);
        }
    }
}

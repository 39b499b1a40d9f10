package io.orderflow.standalone.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fills a system with storefront orders as fast as it takes them: order {@code n} is customer {@code cus_<n % 1000>}
 * ("Customer n % 1000") buying {@code SKU-<n % 500>}, posted under {@code Idempotency-Key: size-<n>}, so a fill
 * started again over the same numbers starts no order twice.
 */
final class Fill {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Fill() {
    }

    /** Posts orders {@code from} to {@code from + count - 1} to {@code base}, {@code inFlight} at a time. */
    static void fill(String base, int from, int count, int inFlight) throws InterruptedException {
        Semaphore permits = new Semaphore(inFlight);
        AtomicInteger failed = new AtomicInteger();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = from; i < from + count; i++) {
                int n = i;
                permits.acquire();
                pool.submit(() -> {
                    try {
                        for (int attempt = 0; attempt < 5; attempt++) {
                            int status = post(base, n).statusCode();
                            if (status == 200 || status == 201) {
                                return;
                            }
                            Thread.sleep(200);
                        }
                        failed.incrementAndGet();
                    } catch (IOException | InterruptedException e) {
                        failed.incrementAndGet();
                    } finally {
                        permits.release();
                    }
                });
            }
        }
        if (failed.get() > 0) {
            System.out.println(failed.get() + " orders could not be started");
        }
    }

    private static HttpResponse<String> post(String base, int n) throws IOException, InterruptedException {
        String body = """
                {"flowId":"storefront_order","input":{"type":"storefront_order","customerId":"cus_%d",\
                "currency":"USD","lines":[{"sku":"SKU-%d","name":"T-shirt","qty":2,"unitPrice":19.5}],\
                "meta":{"shipTo":"1 Main Street","customerName":"Customer %d"}}}""".formatted(n % 1000, n % 500,
                n % 1000);
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + "/api/v1/orders"))
                .header("content-type", "application/json").header("Idempotency-Key", "size-" + n)
                .timeout(Duration.ofSeconds(30)).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}

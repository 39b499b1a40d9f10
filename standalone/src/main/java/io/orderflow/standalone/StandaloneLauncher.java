package io.orderflow.standalone;

import java.util.concurrent.CountDownLatch;

/**
 * The README's run command: starts the whole service in this JVM and stops it cleanly on Ctrl-C.
 */
public final class StandaloneLauncher {

    private StandaloneLauncher() {
    }

    public static void main(String[] args) throws InterruptedException {
        StandaloneSystem system = StandaloneSystem.start(StandaloneSettings.fromEnvironment(System.getenv()));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            system.close();
            stopped.countDown();
        }, "standalone-shutdown"));
        stopped.await();
    }
}

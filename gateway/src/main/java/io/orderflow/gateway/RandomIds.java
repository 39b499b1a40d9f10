package io.orderflow.gateway;

import java.nio.ByteBuffer;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.UUID;

/**
 * Unguessable ids made on the request threads, from one {@code DRBG} {@link SecureRandom} per thread.
 *
 * <p>One shared {@code SecureRandom}, and {@link UUID#randomUUID()}, which uses one, read the JDK's single native
 * generator under one lock. Every POST took it twice on the event loops, and a loop whose lock holder lost its core
 * waited: up to 25 ms at 500 orders/s, with every read queued on that loop waiting too.
 */
public final class RandomIds {

    private static final ThreadLocal<SecureRandom> RANDOM = ThreadLocal.withInitial(() -> {
        try {
            return SecureRandom.getInstance("DRBG");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("DRBG is always present", e);
        }
    });

    private RandomIds() {
    }

    /** {@code bytes} random bytes as lower-case hex. */
    public static String hex(int bytes) {
        byte[] random = new byte[bytes];
        RANDOM.get().nextBytes(random);
        return HexFormat.of().formatHex(random);
    }

    /** A random (version 4) UUID, as {@link UUID#randomUUID()} makes it. */
    public static UUID uuid() {
        byte[] random = new byte[16];
        RANDOM.get().nextBytes(random);
        random[6] = (byte) ((random[6] & 0x0f) | 0x40);
        random[8] = (byte) ((random[8] & 0x3f) | 0x80);
        ByteBuffer bits = ByteBuffer.wrap(random);
        return new UUID(bits.getLong(), bits.getLong());
    }
}

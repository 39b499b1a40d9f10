package io.orderflow.kafka;

import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;

/**
 * TCP buffers sized by the operating system, for every Kafka client of the services and for the embedded broker.
 * <p>
 * Kafka sets a socket's buffers by default: a consumer receives into 64 KB, a producer into 32 KB, the broker into
 * 100 KB. Linux does not grow a buffer the application has set. Over loopback (the standalone system, services
 * sharing a host) a TCP segment can be 64 KB, so when data queues on a connection (requests the broker has not read
 * yet, because it reads one request of a connection at a time; a response a consumer has not polled for yet) the
 * kernel drops a segment instead of growing the buffer, and the sender resends it after TCP's minimum timeout of
 * 200 ms. At 500 orders/s in the standalone system Kafka's fixed buffers made a processor fetch arrive 205 to 220 ms
 * late, once or twice a minute, and every order in flight waited for it (measured 2026-11-25; see docs/performance.md,
 * "Socket buffers left to the kernel"). With -1
 * the kernel sizes each buffer and grows it up to {@code net.ipv4.tcp_rmem}'s maximum.
 */
public final class SocketBuffers {

    /** Kafka's value for "the operating system's default". */
    public static final int OS_DEFAULT = -1;

    private SocketBuffers() {
    }

    /** {@code receive.buffer.bytes} and {@code send.buffer.bytes} for a producer, consumer, admin or Streams client. */
    public static Map<String, Object> client() {
        return Map.of(CommonClientConfigs.RECEIVE_BUFFER_CONFIG, OS_DEFAULT,
                CommonClientConfigs.SEND_BUFFER_CONFIG, OS_DEFAULT);
    }

    /** {@code socket.receive.buffer.bytes} and {@code socket.send.buffer.bytes} for a broker's listeners. */
    public static Map<String, String> broker() {
        return Map.of("socket.receive.buffer.bytes", String.valueOf(OS_DEFAULT),
                "socket.send.buffer.bytes", String.valueOf(OS_DEFAULT));
    }
}

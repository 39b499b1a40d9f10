package io.orderflow.gateway.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * TEST ONLY. One HTTP/1.1 keep-alive connection on a plain socket, so a test controls exactly which bytes go out and
 * when (pipelining, bodies nobody reads) and sees a missing answer as a timeout instead of a client's retry.
 */
public final class RawHttp implements AutoCloseable {

    /** One answer: its status, headers (lower-case names) and body; {@code null} status when none came. */
    public record Response(Integer status, Map<String, String> headers, String body) {

        public boolean closesConnection() {
            return "close".equalsIgnoreCase(headers.get("connection"));
        }
    }

    /** Status of a request that got no answer within the timeout. */
    public static final Response SILENCE = new Response(null, Map.of(), "");
    /** The server closed the connection without answering. */
    public static final Response CLOSED = new Response(-1, Map.of(), "");

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public RawHttp(int port, Duration timeout) {
        try {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout((int) timeout.toMillis());
            in = new BufferedInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The bytes of one request; {@code body} null sends none, a content type null sends no such header. */
    public static byte[] request(String method, String target, Map<String, String> headers, byte[] body) {
        StringBuilder head = new StringBuilder(method).append(' ').append(target).append(" HTTP/1.1\r\n")
                .append("Host: localhost\r\n");
        headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
        if (body != null) {
            head.append("Content-Length: ").append(body.length).append("\r\n");
        }
        head.append("\r\n");
        byte[] start = head.toString().getBytes(StandardCharsets.ISO_8859_1);
        if (body == null) {
            return start;
        }
        byte[] all = new byte[start.length + body.length];
        System.arraycopy(start, 0, all, 0, start.length);
        System.arraycopy(body, 0, all, start.length, body.length);
        return all;
    }

    /** A request without a body. */
    public static byte[] get(String target) {
        return request("GET", target, Map.of(), null);
    }

    public static byte[] request(String method, String target, String contentType, String body) {
        return request(method, target, contentType == null ? Map.of() : Map.of("Content-Type", contentType),
                body == null ? null : body.getBytes(StandardCharsets.UTF_8));
    }

    /** Writes the bytes (one request, several pipelined, or a part of one); false when the server closed. */
    public boolean send(byte[]... requests) {
        try {
            for (byte[] request : requests) {
                out.write(request);
            }
            out.flush();
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The next answer (skipping {@code 100 Continue}), {@link #SILENCE} or {@link #CLOSED}. */
    public Response read(boolean head) {
        try {
            while (true) {
                String statusLine = line();
                if (statusLine == null) {
                    return CLOSED;
                }
                Map<String, String> headers = new LinkedHashMap<>();
                for (String line = line(); line != null && !line.isEmpty(); line = line()) {
                    int colon = line.indexOf(':');
                    headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
                }
                int status = Integer.parseInt(statusLine.split(" ")[1]);
                if (status == 100) {
                    continue;
                }
                return new Response(status, headers, head ? "" : body(headers));
            }
        } catch (SocketTimeoutException e) {
            return SILENCE;
        } catch (IOException e) {
            return CLOSED;
        }
    }

    public Response read() {
        return read(false);
    }

    private String body(Map<String, String> headers) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
            for (int size = Integer.parseInt(line().trim(), 16); size > 0; size = Integer.parseInt(line().trim(), 16)) {
                body.write(in.readNBytes(size));
                line();
            }
            line();
        } else if (headers.containsKey("content-length")) {
            body.write(in.readNBytes(Integer.parseInt(headers.get("content-length"))));
        }
        return body.toString(StandardCharsets.UTF_8);
    }

    private String line() throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                return line.isEmpty() ? null : line.toString();
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing anyway
        }
    }
}

package io.orderflow.gateway.auth;

import static io.orderflow.gateway.testing.GatewayDeployment.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.gateway.testing.GatewayDeployment;
import io.orderflow.gateway.testing.RawHttp;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseCookie;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The gateway's HTTP edge against other sites and behind proxies, over real HTTP on a deployment with a shared
 * password: JSON routes take only {@code application/json}; a cookie caller's state change must come from the
 * gateway's own origin (or {@code ALLOWED_ORIGINS}) while a bearer caller's need not; forwarded headers count only
 * from {@code TRUSTED_PROXIES} (the session cookie's {@code Secure}, the origin compared, the client address); and
 * the guess limit counts an IPv6 client by its /64.
 */
class CrossSiteAndProxyTest {

    private static final String PASSWORD = "edge-shared-password";
    private static final String ALLOWED = "https://ops-allowed.example";

    private static GatewayDeployment deployment;
    /** Connections come from 127.0.0.1, a trusted proxy of this instance. */
    private static WebTestClient behindProxy;
    private static int behindProxyPort;
    /** An instance whose only trusted proxy is an address the test never connects from. */
    private static WebTestClient direct;

    @BeforeAll
    static void deployment() {
        deployment = new GatewayDeployment(PASSWORD, "--orderflow.socket.allowed-origins=" + ALLOWED);
        behindProxy = deployment.startInstance("--orderflow.auth.trusted-proxies=127.0.0.1");
        behindProxyPort = deployment.url(0).getPort();
        direct = deployment.startInstance("--orderflow.auth.trusted-proxies=203.0.113.250,10.0.0.0/8");
    }

    @AfterAll
    static void stop() {
        deployment.close();
    }

    // ---- 415 -------------------------------------------------------------------------------------------------------

    @Test
    void a_json_route_answers_415_to_anything_but_application_json() {
        for (String type : new String[] {"text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
                "multipart/form-data; boundary=x", "application/xml", "application/jsonx"}) {
            behindProxy.post().uri("/api/v1/team/tokens").header(HttpHeaders.AUTHORIZATION, "Bearer " + PASSWORD)
                    .header(HttpHeaders.CONTENT_TYPE, type).bodyValue(tokenBody("plain"))
                    .exchange().expectStatus().isEqualTo(415)
                    .expectBody().json("{\"error\": \"Content type not supported; send application/json\"}", true);
        }
        for (String type : new String[] {"application/json", "application/json; charset=utf-8",
                "Application/JSON;charset=UTF-8"}) {
            behindProxy.post().uri("/api/v1/team/tokens").header(HttpHeaders.AUTHORIZATION, "Bearer " + PASSWORD)
                    .header(HttpHeaders.CONTENT_TYPE, type).bodyValue(tokenBody("json"))
                    .exchange().expectStatus().isCreated();
        }
    }

    @Test
    void a_body_without_a_content_type_is_415() {
        try (RawHttp raw = new RawHttp(behindProxyPort, Duration.ofSeconds(10))) {
            raw.send(RawHttp.request("POST", "/api/v1/team/tokens", Map.of("Authorization", "Bearer " + PASSWORD),
                    tokenBody("untyped").getBytes(StandardCharsets.UTF_8)));
            RawHttp.Response answer = raw.read();
            assertThat(answer.status()).isEqualTo(415);
            assertThat(answer.body()).contains("send application/json");
        }
    }

    // ---- cookie callers and Origin --------------------------------------------------------------------------------

    @Test
    void a_cookie_callers_change_from_a_foreign_origin_is_refused_and_a_bearer_callers_is_not() {
        String session = signIn(behindProxy, Map.of());
        String own = "http://localhost:" + behindProxyPort;

        createToken(cookie(session, HttpHeaders.ORIGIN, "https://evil.example"), "evil").expectStatus().isForbidden()
                .expectBody().jsonPath("$.error").value(String.class, error -> assertThat(error)
                        .isEqualTo("Cross-site request refused: origin https://evil.example is neither this "
                                + "service's nor in ALLOWED_ORIGINS"));
        // a sibling origin of the same site: the Lax cookie goes along, Origin gives it away
        createToken(cookie(session, HttpHeaders.ORIGIN, "http://blog.localhost:" + behindProxyPort), "sibling")
                .expectStatus().isForbidden();
        createToken(cookie(session, "Sec-Fetch-Site", "same-site"), "fetch-site").expectStatus().isForbidden();
        createToken(cookie(session, "X-Unrelated", "1"), "no-origin").expectStatus().isForbidden();
        // a read is not a change
        behindProxy.get().uri("/api/v1/team/tokens")
                .headers(cookie(session, HttpHeaders.ORIGIN, "https://evil.example")).exchange().expectStatus().isOk();

        createToken(cookie(session, HttpHeaders.ORIGIN, own), "own").expectStatus().isCreated();
        createToken(cookie(session, "Sec-Fetch-Site", "same-origin"), "same-origin").expectStatus().isCreated();
        createToken(cookie(session, HttpHeaders.ORIGIN, ALLOWED), "allowed").expectStatus().isCreated();
        createToken(headers -> {
            headers.set(HttpHeaders.AUTHORIZATION, "Bearer " + PASSWORD);
            headers.set(HttpHeaders.ORIGIN, "https://evil.example");
        }, "bearer").expectStatus().isCreated();

        String tokens = json(behindProxy.get().uri("/api/v1/team/tokens")
                .header(HttpHeaders.AUTHORIZATION, "Bearer " + PASSWORD).exchange().expectStatus().isOk()).toString();
        assertThat(tokens).contains("origin-own", "origin-same-origin", "origin-allowed", "origin-bearer")
                .doesNotContain("origin-evil", "origin-sibling", "origin-fetch-site", "origin-no-origin");
    }

    // ---- trusted proxies ------------------------------------------------------------------------------------------

    @Test
    void behind_a_trusted_proxy_that_terminated_tls_the_session_cookie_is_secure() {
        assertThat(signInCookie(behindProxy, Map.of("X-Forwarded-Proto", "https")).isSecure()).isTrue();
        assertThat(signInCookie(behindProxy, Map.of("Forwarded", "proto=https;for=198.51.100.20")).isSecure())
                .isTrue();
        assertThat(signInCookie(behindProxy, Map.of()).isSecure()).isFalse();
        // from an address that is not a trusted proxy the header is ignored
        assertThat(signInCookie(direct, Map.of("X-Forwarded-Proto", "https")).isSecure()).isFalse();
    }

    @Test
    void behind_a_trusted_proxy_the_origin_is_compared_with_the_forwarded_scheme_host_and_port() {
        String session = signIn(behindProxy, Map.of());
        Consumer<HttpHeaders> viaProxy = headers -> {
            headers.set("X-Forwarded-Proto", "https");
            headers.set("X-Forwarded-Host", "ops.example.com");
        };
        createToken(behindProxy, cookie(session, HttpHeaders.ORIGIN, "https://ops.example.com").andThen(viaProxy),
                "proxied").expectStatus().isCreated();
        // the hop from the proxy to the gateway is not the browser's origin
        createToken(behindProxy, cookie(session, HttpHeaders.ORIGIN, "http://localhost:" + behindProxyPort)
                .andThen(viaProxy), "hop").expectStatus().isForbidden();
        // an instance that does not trust this address compares with the connection's own origin
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> direct.get().uri("/api/v1/auth/me")
                .headers(cookie(session, "X-Unrelated", "1")).exchange().expectStatus().isOk());
        createToken(direct, cookie(session, HttpHeaders.ORIGIN, "https://ops.example.com").andThen(viaProxy),
                "spoofed").expectStatus().isForbidden();
    }

    // ---- the guess limit ------------------------------------------------------------------------------------------

    @Test
    void two_addresses_of_one_ipv6_64_share_one_guess_budget() {
        for (int guess = 1; guess <= 20; guess++) {
            String address = guess % 2 == 0 ? "2001:db8:aa:1::1" : "2001:db8:aa:1:ffff:ffff:ffff:fffe";
            flows(address, "guess-" + guess).expectStatus().isUnauthorized();
        }
        flows("2001:db8:aa:1:1234::9", "guess-21").expectStatus().isEqualTo(429)
                .expectHeader().valueMatches(HttpHeaders.RETRY_AFTER, "\\d+");
        flows("[2001:db8:aa:1::77]:4711", PASSWORD).expectStatus().isEqualTo(429);
        flows("2001:db8:aa:2::1", PASSWORD).expectStatus().isOk(); // the next /64 is another client
        flows("198.51.100.77", PASSWORD).expectStatus().isOk();
    }

    // ---- helpers ---------------------------------------------------------------------------------------------------

    private static String tokenBody(String name) {
        return "{\"name\": \"" + name + "-" + UUID.randomUUID() + "\", \"role\": \"viewer\"}";
    }

    private static WebTestClient.ResponseSpec createToken(Consumer<HttpHeaders> headers, String name) {
        return createToken(behindProxy, headers, name);
    }

    private static WebTestClient.ResponseSpec createToken(WebTestClient http, Consumer<HttpHeaders> headers,
                                                          String name) {
        return http.post().uri("/api/v1/team/tokens").contentType(MediaType.APPLICATION_JSON).headers(headers)
                .bodyValue("{\"name\": \"origin-" + name + "\", \"role\": \"viewer\"}").exchange();
    }

    /** The session cookie, and one more header as a browser (or a script) would send it. */
    private static Consumer<HttpHeaders> cookie(String session, String header, String value) {
        return headers -> {
            headers.add(HttpHeaders.COOKIE, SessionCookies.NAME + "=" + session);
            headers.set(header, value);
        };
    }

    private static ResponseCookie signInCookie(WebTestClient http, Map<String, String> headers) {
        return http.post().uri("/api/v1/auth/sign-in").contentType(MediaType.APPLICATION_JSON)
                .headers(h -> headers.forEach(h::set))
                .bodyValue("{\"password\": \"" + PASSWORD + "\"}").exchange()
                .expectStatus().isOk().returnResult(String.class).getResponseCookies().getFirst(SessionCookies.NAME);
    }

    private static String signIn(WebTestClient http, Map<String, String> headers) {
        return signInCookie(http, headers).getValue();
    }

    private static WebTestClient.ResponseSpec flows(String client, String bearer) {
        return behindProxy.get().uri("/api/v1/flows").header("X-Forwarded-For", client)
                .header(HttpHeaders.AUTHORIZATION, "Bearer " + bearer).exchange();
    }
}

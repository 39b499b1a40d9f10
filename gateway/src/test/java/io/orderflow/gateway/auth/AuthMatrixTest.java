package io.orderflow.gateway.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.DynamicContainer.dynamicContainer;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.orderflow.gateway.auth.RouteRules.Need;
import io.orderflow.gateway.auth.RouteRules.Rule;
import io.orderflow.gateway.caller.Role;
import io.orderflow.gateway.orders.OrderIds;
import io.orderflow.gateway.testing.FakeProcessor.FakeOrder;
import io.orderflow.gateway.testing.GatewayDeployment;
import io.orderflow.schemas.json.Json;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.result.method.annotation.RequestMappingHandlerMapping;
import tools.jackson.databind.JsonNode;

/**
 * Every route of the published OpenAPI document × every kind of principal × an open and a closed deployment, each
 * answered with the exact status the spec's Authentication rules give. The routes come from the document and their
 * needs from {@link RouteRules}; a route with no rule, or no probe here, fails the test.
 */
class AuthMatrixTest {

    private static final String PASSWORD = "matrix-shared-password";
    private static final String WEBHOOK_SECRET = "--orderflow.gateway.webhook-secret=matrix-webhook-secret";
    private static final String ORDER = OrderIds.random();

    /** How a request authenticates, and as whom: {@code role} is null for credentials that must be refused. */
    record Principal(String kind, Role role, Consumer<HttpHeaders> credentials) {

        boolean none() {
            return kind.equals("none");
        }
    }

    /** A request that the route answers with {@code allowed} when the caller may use it. */
    record Probe(String path, String body, int allowed) {
    }

    /** The dashboard's scripts and pages, written here independently of the rule table: public, like health. */
    private static final List<String> DASHBOARD = List.of("/assets/**", "/", "/sign-in", "/orders", "/orders/{id}",
            "/approvals", "/back-office", "/webhooks", "/team", "/audit", "/flows", "/system",
            "/incidents", "/batches", "/batches/{id}");
    private static final List<String> UNDOCUMENTED = java.util.stream.Stream.concat(
            java.util.stream.Stream.of("/api/v1/openapi.json", "/api/v1/orders/{id}/socket",
                    "/api/v1/order-updates/socket", "/actuator/prometheus"),
            DASHBOARD.stream())
            .toList();

    private static GatewayDeployment open;
    private static GatewayDeployment closed;
    private static WebTestClient openHttp;
    private static WebTestClient closedHttp;
    private static List<Principal> openPrincipals;
    private static List<Principal> closedPrincipals;
    private static final AtomicInteger TOKEN_NAMES = new AtomicInteger();

    @BeforeAll
    static void deployments() {
        open = new GatewayDeployment(null, WEBHOOK_SECRET);
        openHttp = open.startInstance();
        closed = new GatewayDeployment(PASSWORD, WEBHOOK_SECRET);
        closedHttp = closed.startInstance();
        for (GatewayDeployment deployment : List.of(open, closed)) {
            deployment.processor.put(new FakeOrder(ORDER, "storefront_order", "fp", "running", null, null, 0));
        }
        openPrincipals = tokenPrincipals(openHttp, null);
        openPrincipals.addFirst(new Principal("none", Role.OPERATOR, h -> { }));

        closedPrincipals = tokenPrincipals(closedHttp, PASSWORD);
        closedPrincipals.addFirst(new Principal("none", null, h -> { }));
        addPerson("expiring@example.com", "viewer");
        String expiring = session(closedHttp, "expiring@example.com");
        closed.clock.advance(Duration.ofHours(13)); // past the 12-hour person session
        addPerson("approver@example.com", "approver");
        String person = session(closedHttp, "approver@example.com");
        String disabledPersonId = addPerson("disabled@example.com", "operator");
        String disabled = session(closedHttp, "disabled@example.com");
        closedHttp.patch().uri("/api/v1/team/people/" + disabledPersonId).header(HttpHeaders.AUTHORIZATION,
                "Bearer " + PASSWORD).contentType(MediaType.APPLICATION_JSON).bodyValue("{\"disabled\": true}")
                .exchange().expectStatus().isOk();
        String passwordSession = signIn(closedHttp, "{\"password\": \"" + PASSWORD + "\"}");
        closedPrincipals.add(new Principal("approver person session", Role.APPROVER, cookie(person)));
        closedPrincipals.add(new Principal("expired session", null, cookie(expiring)));
        closedPrincipals.add(new Principal("disabled person session", null, cookie(disabled)));
        closedPrincipals.add(new Principal("shared password bearer", Role.OPERATOR, bearer(PASSWORD)));
        closedPrincipals.add(new Principal("shared password session", Role.OPERATOR, cookie(passwordSession)));
    }

    @AfterAll
    static void stop() {
        open.close();
        closed.close();
    }

    @TestFactory
    Stream<DynamicNode> every_route_for_every_principal_in_open_and_closed_deployments() {
        List<Rule> routes = documentedRoutes(closedHttp);
        assertThat(RouteRules.RULES).as("rules for routes that are not in the OpenAPI document")
                .filteredOn(rule -> !routes.contains(rule)).extracting(Rule::path)
                // the document does not list itself, nor the order socket's WebSocket upgrade (SocketTest covers it),
                // nor the metrics scrape, nor the dashboard's assets and pages
                .containsExactlyElementsOf(UNDOCUMENTED);
        routes.addFirst(RouteRules.of("GET", "/api/v1/openapi.json").orElseThrow());
        routes.addFirst(RouteRules.of("GET", "/actuator/prometheus").orElseThrow());
        // the dashboard's assets and pages are walked too (the socket's upgrade is SocketTest's)
        DASHBOARD.forEach(path -> routes.addFirst(RouteRules.of("GET", path).orElseThrow()));
        return Stream.of(
                dynamicContainer("open deployment", matrix(openHttp, openPrincipals, routes, true)),
                dynamicContainer("closed deployment (APP_PASSWORD set)",
                        matrix(closedHttp, closedPrincipals, routes, false)));
    }

    /**
     * The route table is the one authorization of a route (handlers do not check roles again), so every route of
     * the gateway's own controllers has a rule there, documented or not.
     */
    @Test
    void every_route_the_gateway_maps_has_a_rule() {
        List<String> mapped = new ArrayList<>();
        closed.bean(0, "requestMappingHandlerMapping", RequestMappingHandlerMapping.class).getHandlerMethods()
                .forEach((info, handler) -> {
                    if (handler.getBeanType().getPackageName().startsWith("io.orderflow.")) {
                        info.getPatternsCondition().getPatterns().forEach(pattern ->
                                info.getMethodsCondition().getMethods().forEach(method ->
                                        mapped.add(method.name() + " " + pattern.getPatternString())));
                    }
                });
        assertThat(mapped).isNotEmpty().allSatisfy(route -> assertThat(
                RouteRules.of(route.substring(0, route.indexOf(' ')), route.substring(route.indexOf(' ') + 1)))
                .as("the rule for %s", route).isPresent());
    }

    private static Stream<DynamicNode> matrix(WebTestClient http, List<Principal> principals, List<Rule> routes,
                                              boolean openDeployment) {
        return principals.stream().map(principal -> dynamicContainer(principal.kind(), routes.stream()
                .map(rule -> dynamicTest(rule.method() + " " + rule.path(), () -> {
                    Probe probe = probe(rule);
                    int expected = expected(rule, principal, probe, openDeployment);
                    WebTestClient.RequestBodySpec request = http.method(rule.method()).uri(probe.path())
                            .headers(principal.credentials());
                    EntityExchangeResult<byte[]> result = (probe.body().isEmpty() ? request.exchange()
                            : request.contentType(MediaType.APPLICATION_JSON).bodyValue(probe.body()).exchange())
                            .expectBody().returnResult();
                    assertThat(result.getStatus().value()).as("%s %s as %s", rule.method(), rule.path(),
                            principal.kind()).isEqualTo(expected);
                    if (expected == 403) {
                        assertThat(Json.MAPPER.readTree(result.getResponseBody()).get("error").asString())
                                .isEqualTo(rule.need().role().orElseThrow().needed());
                    }
                    if (expected == 401) {
                        assertThat(Json.MAPPER.readTree(result.getResponseBody()).has("error")).isTrue();
                    }
                }))));
    }

    /**
     * What the spec says a route needs, written here independently of {@link RouteRules}: no authentication for
     * health, the document and signing in or out; a signature for signed events; otherwise reads need viewer,
     * approval decisions approver, and everything else that changes state operator (rule 1).
     */
    private static Need specNeed(Rule rule) {
        String path = rule.path();
        if (List.of("/health", "/api/v1/openapi.json", "/api/v1/auth/sign-in", "/api/v1/auth/sign-out")
                .contains(path) || DASHBOARD.contains(path)) {
            return Need.NONE;
        }
        if (path.equals("/api/v1/webhooks/events")) {
            return Need.SIGNATURE;
        }
        if (path.equals("/api/v1/incidents") || path.startsWith("/api/v1/incidents/")) {
            // beyond the contract: incidents carry internal error texts, and resolving one changes an order
            return Need.OPERATOR;
        }
        if (path.equals("/api/v1/batches") || path.startsWith("/api/v1/batches/")) {
            // beyond the contract: a batch changes many orders, and its progress names them and their refusals
            return Need.OPERATOR;
        }
        if (path.equals("/api/v1/system")) {
            return Need.OPERATOR; // beyond the contract: the services' readiness parts and the consumer groups
        }
        if (path.equals("/actuator/prometheus")) {
            return Need.OPERATOR; // beyond the contract: the metrics show incidents, lag and orders in flight
        }
        if (path.equals("/api/v1/team/audit")) {
            return Need.OPERATOR; // beyond the contract: who changed whom on the team, for operators only
        }
        if (rule.method().name().equals("GET")) {
            return Need.VIEWER;
        }
        return path.contains("/approvals/") ? Need.APPROVER : Need.OPERATOR;
    }

    /** The spec's answer: rules 1 to 4 of Authentication. */
    private static int expected(Rule rule, Principal principal, Probe probe, boolean openDeployment) {
        Need need = specNeed(rule);
        assertThat(rule.need()).as("the rule table's need for %s %s", rule.method(), rule.path()).isEqualTo(need);
        if (need == Need.NONE) {
            return probe.allowed();
        }
        if (need == Need.SIGNATURE) {
            return 401; // only a signature opens the signed endpoint, and the probe carries none
        }
        if (principal.role() == null) {
            return 401;
        }
        if (principal.none() && !openDeployment) {
            return 401;
        }
        return principal.role().covers(need.role().orElseThrow()) ? probe.allowed() : 403;
    }

    /** A request per route that changes nothing the other rows depend on. Sign-out comes last (it ends a session). */
    private static Probe probe(Rule rule) {
        String order = "/api/v1/orders/" + ORDER;
        return switch (rule.method().name() + " " + rule.path()) {
            case "GET /health" -> new Probe("/health", "", 200);
            case "GET /assets/**" -> new Probe("/assets/app.js", "", 200);
            case "GET /orders/{id}" -> new Probe("/orders/" + ORDER, "", 200);
            case "GET /", "GET /sign-in", "GET /orders", "GET /approvals", "GET /back-office", "GET /webhooks",
                 "GET /team", "GET /audit", "GET /flows", "GET /system", "GET /incidents", "GET /batches" ->
                    new Probe(rule.path(), "", 200);
            case "GET /batches/{id}" -> new Probe("/batches/bat_0000000000000000", "", 200);
            case "GET /api/v1/openapi.json" -> new Probe("/api/v1/openapi.json", "", 200);
            case "GET /api/v1/flows" -> new Probe("/api/v1/flows", "", 200);
            case "GET /api/v1/flows/{id}/versions/{version}" ->
                    new Probe("/api/v1/flows/storefront_order/versions/1", "", 200);
            case "POST /api/v1/orders" -> new Probe("/api/v1/orders", """
                    {"flowId": "storefront_order", "input": {"type": "storefront_order", "customerId": "c-1",
                     "lines": [{"sku": "SKU-1", "qty": 1, "unitPrice": 5}]}}""", 201);
            case "GET /api/v1/orders" -> new Probe("/api/v1/orders", "", 200);
            case "GET /api/v1/orders/counts" -> new Probe("/api/v1/orders/counts", "", 200);
            case "GET /api/v1/approvals" -> new Probe("/api/v1/approvals?status=pending", "", 200);
            case "GET /api/v1/orders/{id}" -> new Probe(order, "", 200);
            case "GET /api/v1/incidents" -> new Probe("/api/v1/incidents", "", 200);
            case "POST /api/v1/incidents/{id}/retry" -> new Probe("/api/v1/incidents/not-an-incident/retry", "", 404);
            case "POST /api/v1/incidents/{id}/dismiss" ->
                    new Probe("/api/v1/incidents/" + ORDER + ":1/dismiss", "{\"note\": \" \"}", 400);
            case "GET /api/v1/system" -> new Probe("/api/v1/system", "", 200);
            // clock control is off in both deployments: the clock routes answer as unknown ones
            case "GET /api/v1/clock" -> new Probe("/api/v1/clock", "", 404);
            case "POST /api/v1/clock" -> new Probe("/api/v1/clock", "{\"advanceBy\": \"PT1H\"}", 404);
            case "DELETE /api/v1/clock" -> new Probe("/api/v1/clock", "", 404);
            case "POST /api/v1/batches" -> new Probe("/api/v1/batches", "{\"filter\": {}, \"action\": \"cancel\"}", 400);
            case "GET /api/v1/batches" -> new Probe("/api/v1/batches", "", 200);
            case "GET /api/v1/batches/{id}" -> new Probe("/api/v1/batches/bat_0000000000000000", "", 404);
            case "POST /api/v1/batches/{id}/stop" -> new Probe("/api/v1/batches/bat_0000000000000000/stop", "", 404);
            case "GET /actuator/prometheus" -> new Probe("/actuator/prometheus", "", 200);
            case "POST /api/v1/orders/{id}/events" -> new Probe(order + "/events", "{\"event\": \"x.happened\"}", 200);
            case "POST /api/v1/orders/{id}/approvals/{nodeId}" ->
                    new Probe(order + "/approvals/approval", "{\"decision\": \"approved\"}", 409);
            case "POST /api/v1/orders/{id}/cancel" -> new Probe(order + "/cancel", "{}", 200);
            // a body without toVersion: refused before the order or the flows are read
            case "POST /api/v1/orders/{id}/migrate" -> new Probe(order + "/migrate", "{}", 400);
            case "GET /api/v1/webhook-subscriptions" -> new Probe("/api/v1/webhook-subscriptions", "", 200);
            case "POST /api/v1/webhook-subscriptions" ->
                    new Probe("/api/v1/webhook-subscriptions", "{\"url\": \"https://example.com/hook\"}", 201);
            case "GET /api/v1/webhook-subscriptions/{id}" ->
                    new Probe("/api/v1/webhook-subscriptions/whs_known", "", 200);
            case "POST /api/v1/webhook-subscriptions/{id}/deliveries/{deliveryId}/redeliver" ->
                    new Probe("/api/v1/webhook-subscriptions/whs_known/deliveries/dlv_known/redeliver", "", 200);
            case "POST /api/v1/webhook-subscriptions/{id}/replay" -> new Probe(
                    "/api/v1/webhook-subscriptions/whs_known/replay", "{\"since\": \"2026-11-26T06:00:00Z\"}", 200);
            case "DELETE /api/v1/webhook-subscriptions/{id}" ->
                    new Probe("/api/v1/webhook-subscriptions/whs_known", "", 200);
            case "POST /api/v1/webhook-subscriptions/{id}/rotate-secret" ->
                    new Probe("/api/v1/webhook-subscriptions/whs_known/rotate-secret", "", 200);
            case "GET /api/v1/webhook-subscriptions/{id}/deliveries" ->
                    new Probe("/api/v1/webhook-subscriptions/whs_known/deliveries", "", 200);
            case "POST /api/v1/webhooks/events" ->
                    new Probe("/api/v1/webhooks/events", "{\"orderId\": \"" + ORDER + "\", \"event\": \"x\"}", 401);
            case "POST /api/v1/auth/sign-in" -> new Probe("/api/v1/auth/sign-in", "{\"email\": 7}", 400);
            case "POST /api/v1/auth/sign-out" -> new Probe("/api/v1/auth/sign-out", "", 200);
            case "GET /api/v1/auth/me" -> new Probe("/api/v1/auth/me", "", 200);
            case "GET /api/v1/team/people" -> new Probe("/api/v1/team/people", "", 200);
            case "POST /api/v1/team/people" -> new Probe("/api/v1/team/people",
                    "{\"email\": \"x@example.com\", \"name\": \"X\", \"role\": \"king\"}", 400);
            case "PATCH /api/v1/team/people/{id}" ->
                    new Probe("/api/v1/team/people/usr_nobody", "{\"role\": \"viewer\"}", 404);
            case "POST /api/v1/team/people/{id}/reset-password" ->
                    new Probe("/api/v1/team/people/usr_nobody/reset-password", "", 404);
            case "GET /api/v1/team/tokens" -> new Probe("/api/v1/team/tokens", "", 200);
            case "POST /api/v1/team/tokens" -> new Probe("/api/v1/team/tokens",
                    "{\"name\": \"probe-" + TOKEN_NAMES.incrementAndGet() + "\", \"role\": \"viewer\"}", 201);
            case "DELETE /api/v1/team/tokens/{id}" -> new Probe("/api/v1/team/tokens/tok_nobody", "", 404);
            case "GET /api/v1/team/audit" -> new Probe("/api/v1/team/audit?limit=5", "", 200);
            default -> throw new AssertionError("No probe for " + rule.method() + " " + rule.path()
                    + ": add one to AuthMatrixTest");
        };
    }

    /** Every operation of the published document with its rule; sign-out last. */
    private static List<Rule> documentedRoutes(WebTestClient http) {
        // springdoc builds the document on its first request, which takes seconds on a busy machine
        JsonNode paths = Json.MAPPER.readTree(http.mutate().responseTimeout(Duration.ofSeconds(90)).build()
                .get().uri("/api/v1/openapi.json").exchange()
                .expectStatus().isOk().expectBody().returnResult().getResponseBody()).get("paths");
        List<Rule> routes = new ArrayList<>();
        paths.properties().forEach(path -> path.getValue().properties().forEach(operation -> {
            String method = operation.getKey().toUpperCase(java.util.Locale.ROOT);
            routes.add(RouteRules.of(method, path.getKey()).orElseThrow(() -> new AssertionError(
                    "No authorization rule for " + method + " " + path.getKey())));
        }));
        routes.sort(Comparator.comparing((Rule rule) -> rule.path().endsWith("/sign-out")));
        return routes;
    }

    // ---- principals ----------------------------------------------------------------------------------------------

    private static List<Principal> tokenPrincipals(WebTestClient http, String password) {
        Map<String, String> tokens = new LinkedHashMap<>();
        for (String role : List.of("viewer", "approver", "operator", "revoked")) {
            JsonNode created = GatewayDeployment.json(GatewayDeployment.post(http, "/api/v1/team/tokens", password,
                    "{\"name\": \"matrix-" + role + "\", \"role\": \"" + ("revoked".equals(role) ? "operator" : role)
                            + "\"}").expectStatus().isCreated());
            tokens.put(role, created.get("value").asString());
            if ("revoked".equals(role)) {
                http.delete().uri("/api/v1/team/tokens/" + created.get("token").get("id").asString())
                        .headers(bearer(password)).exchange().expectStatus().isOk();
            }
        }
        List<Principal> principals = new ArrayList<>();
        principals.add(new Principal("wrong token", null, bearer("owf_thisTokenWasNeverIssued")));
        principals.add(new Principal("revoked token", null, bearer(tokens.get("revoked"))));
        principals.add(new Principal("viewer token", Role.VIEWER, bearer(tokens.get("viewer"))));
        principals.add(new Principal("approver token", Role.APPROVER, bearer(tokens.get("approver"))));
        principals.add(new Principal("operator token", Role.OPERATOR, bearer(tokens.get("operator"))));
        return principals;
    }

    private static String addPerson(String email, String role) {
        JsonNode added = GatewayDeployment.json(GatewayDeployment.post(closedHttp, "/api/v1/team/people", PASSWORD,
                "{\"email\": \"" + email + "\", \"name\": \"" + email + "\", \"role\": \"" + role
                        + "\", \"password\": \"correct horse battery\"}").expectStatus().isCreated());
        return added.get("person").get("id").asString();
    }

    private static String session(WebTestClient http, String email) {
        return signIn(http, "{\"email\": \"" + email + "\", \"password\": \"correct horse battery\"}");
    }

    static String signIn(WebTestClient http, String body) {
        return http.post().uri("/api/v1/auth/sign-in").contentType(MediaType.APPLICATION_JSON).bodyValue(body)
                .exchange().expectStatus().isOk().returnResult(String.class).getResponseCookies()
                .getFirst(SessionCookies.NAME).getValue();
    }

    static Consumer<HttpHeaders> bearer(String value) {
        return headers -> {
            if (value != null) {
                headers.set(HttpHeaders.AUTHORIZATION, "Bearer " + value);
            }
        };
    }

    /** The session cookie, with the {@code Sec-Fetch-Site} a browser sends on a request from the dashboard's pages. */
    static Consumer<HttpHeaders> cookie(String value) {
        return headers -> {
            headers.add(HttpHeaders.COOKIE, SessionCookies.NAME + "=" + value);
            headers.set(CrossSiteRequests.SEC_FETCH_SITE, "same-origin");
        };
    }
}

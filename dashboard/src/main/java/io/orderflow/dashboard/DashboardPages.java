package io.orderflow.dashboard;

import java.util.List;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.http.CacheControl;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * The dashboard: one HTML page for every client-side route, and its scripts and styles under {@value #ASSETS}
 * (Spring Boot's static resources, {@code classpath:/static/}). The pages need no sign-in: the page asks
 * {@code GET /api/v1/auth/me} and shows the sign-in form on a 401. Everything they show comes from the public API and
 * the order socket, which keep refusing what the caller's role does not allow.
 */
@Configuration
public class DashboardPages {

    /** The client-side routes: each answers the same {@code index.html}, whose script renders the page. */
    public static final List<String> PAGES = List.of("/", "/sign-in", "/orders", "/orders/{id}", "/approvals",
            "/back-office", "/webhooks", "/team", "/audit", "/flows", "/system",
            "/incidents", "/batches", "/batches/{id}");

    /** The scripts and styles of the pages. */
    public static final String ASSETS = "/assets/**";

    private static final Resource INDEX = new ClassPathResource("static/index.html");

    @Bean
    RouterFunction<ServerResponse> dashboardPageRoutes() {
        RouterFunctions.Builder routes = RouterFunctions.route();
        for (String page : PAGES) {
            routes.GET(page, request -> ServerResponse.ok().contentType(MediaType.TEXT_HTML)
                    .cacheControl(CacheControl.noCache()).bodyValue(INDEX));
        }
        return routes.build();
    }
}

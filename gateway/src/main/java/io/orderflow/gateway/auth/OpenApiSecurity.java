package io.orderflow.gateway.auth;

import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.oas.models.PathItem;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import io.swagger.v3.oas.models.responses.ApiResponses;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import java.util.List;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The security of every operation in the OpenAPI document, from the route table: the schemes (API token or shared
 * password as a bearer, the session cookie, the inbound signature), which of them each operation takes, the role it
 * needs ({@code x-required-role}) and the 401/403/429 answers of the operations that need one.
 */
@Configuration
class OpenApiSecurity {

    static final String BEARER = "bearer";
    static final String SESSION = "session";
    static final String SIGNATURE = "signature";

    @Bean
    OpenApiCustomizer securityOfEveryOperation() {
        return openApi -> {
            Components components = openApi.getComponents() == null ? new Components() : openApi.getComponents();
            openApi.components(components
                    .addSecuritySchemes(BEARER, new SecurityScheme().type(SecurityScheme.Type.HTTP).scheme("bearer")
                            .description("An API token (owf_...) from the Team page, or the shared password "
                                    + "(APP_PASSWORD), which acts as an operator"))
                    .addSecuritySchemes(SESSION, new SecurityScheme().type(SecurityScheme.Type.APIKEY)
                            .in(SecurityScheme.In.COOKIE).name(SessionCookies.NAME)
                            .description("The dashboard session cookie set by signIn"))
                    .addSecuritySchemes(SIGNATURE, new SecurityScheme().type(SecurityScheme.Type.APIKEY)
                            .in(SecurityScheme.In.HEADER).name("X-Service-Signature")
                            .description("t=<unix seconds>,v1=<hex HMAC-SHA256(WEBHOOK_SECRET, '<t>.<raw body>')>")));
            openApi.getPaths().forEach((path, item) -> item.readOperationsMap()
                    .forEach((method, operation) -> secure(method, path, operation)));
        };
    }

    private static void secure(PathItem.HttpMethod method, String path, Operation operation) {
        RouteRules.Rule rule = RouteRules.of(method.name(), path).orElseThrow(() -> new IllegalStateException(
                "No authorization rule for " + method + " " + path + ": add one to RouteRules"));
        switch (rule.need()) {
            case NONE -> operation.security(List.of());
            case SIGNATURE -> operation.security(List.of(new SecurityRequirement().addList(SIGNATURE)));
            default -> {
                String role = rule.need().role().orElseThrow().wire();
                operation.security(List.of(new SecurityRequirement().addList(BEARER),
                        new SecurityRequirement().addList(SESSION)));
                operation.addExtension("x-required-role", role);
                ApiResponses responses = operation.getResponses() == null ? new ApiResponses()
                        : operation.getResponses();
                operation.responses(responses);
                responses.putIfAbsent("401", error("missing, wrong or revoked token, or a session that has ended"));
                if (rule.need() != RouteRules.Need.VIEWER) { // every caller is at least a viewer
                    responses.putIfAbsent("403", error("the caller's role is below " + role));
                }
                responses.putIfAbsent("429", error("more than 20 wrong bearer values from this address in 15 "
                        + "minutes; see Retry-After"));
            }
        }
    }

    private static ApiResponse error(String description) {
        return new ApiResponse().description(description).content(new Content().addMediaType("application/json",
                new MediaType().schema(new Schema<>().$ref("#/components/schemas/Error"))));
    }
}

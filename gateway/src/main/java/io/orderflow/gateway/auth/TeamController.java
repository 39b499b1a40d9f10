package io.orderflow.gateway.auth;

import io.orderflow.gateway.api.ApiException;
import com.fasterxml.jackson.annotation.JsonInclude;
import io.orderflow.gateway.auth.Principals.ApiToken;
import io.orderflow.gateway.auth.Principals.AuditEntry;
import io.orderflow.gateway.auth.Principals.Person;
import io.orderflow.gateway.caller.Access;
import io.orderflow.gateway.caller.Role;
import io.orderflow.gateway.validation.RequestSchema;
import io.orderflow.gateway.validation.RequestValidator;
import io.orderflow.schemas.commands.Caller;
import io.swagger.v3.oas.annotations.Operation;
import java.net.URI;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;
import io.orderflow.gateway.limits.Pools;
import reactor.core.scheduler.Scheduler;
import tools.jackson.databind.JsonNode;

/**
 * The team: people (add, change role, disable, reset password) and API tokens (create, revoke), for the dashboard's
 * Team page and for scripts, and the audit log of every change to it. Reads need viewer (the audit log operator),
 * changes operator (the route table says so). Passwords and token values
 * are returned once, when they are made, and are never listed or logged.
 *
 * <p>Bootstrap: the first person can be added only with the shared password or on an open deployment. Without a
 * shared password the first person must be an operator, and the last active operator cannot be demoted or disabled,
 * so nobody locks the team out.
 */
@RestController
@RequestMapping("/api/v1/team")
class TeamController {

    private final PrincipalDirectory directory;
    private final PrincipalAuthenticator authenticator;
    private final AuthProperties settings;
    private final RequestValidator validator;
    private final PasswordEncoder passwords;
    private final Clock clock;
    private final Access access;
    private final Scheduler hashing;
    private final AuditLog auditLog;

    TeamController(PrincipalDirectory directory, PrincipalAuthenticator authenticator, AuthProperties settings,
                   RequestValidator validator, PasswordEncoder passwords, Clock clock, Access access, Pools pools,
                   AuditLog auditLog) {
        this.access = access;
        this.auditLog = auditLog;
        this.hashing = pools.passwords();
        this.directory = directory;
        this.authenticator = authenticator;
        this.settings = settings;
        this.validator = validator;
        this.passwords = passwords;
        this.clock = clock;
    }

    /** A person as the API shows them: never the password hash. */
    record PersonView(String id, String email, String name, String role, boolean disabled, long createdAt) {
        static PersonView of(Person person) {
            return new PersonView(person.id(), person.email(), person.name(), person.role(), person.disabled(),
                    person.createdAt());
        }
    }

    /**
     * A token as the API shows them: never the value or its digest.
     *
     * @param expiresAt  epoch milliseconds from which it is refused, or {@code null}
     * @param lastUsedAt when it was last used, to within a minute, or {@code null} if never
     */
    record TokenView(String id, String name, String role, boolean revoked, long createdAt, String createdBy,
                     String hint, Long expiresAt, Long lastUsedAt) {
        static TokenView of(ApiToken token, Long lastUsedAt) {
            return new TokenView(token.id(), token.name(), token.role(), token.revoked(), token.createdAt(),
                    token.createdBy(), token.hint(), token.expiresAt(), lastUsedAt);
        }
    }

    record People(List<PersonView> people) {
    }

    /** A person with the password they sign in with, shown only here. */
    record PersonWithPassword(PersonView person, String password) {
    }

    record Tokens(List<TokenView> tokens) {
    }

    /** A page of the audit log, newest first; {@code next} is the cursor of the following page, absent on the last. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record AuditPage(List<AuditEntry> entries, String next) {
    }

    /** A new token with its value, shown only here. */
    record NewToken(TokenView token, String value) {
    }

    // ---- people --------------------------------------------------------------------------------------------------

    @Operation(operationId = "listPeople", summary = "The team's people, in the order they were added")
    @GetMapping("/people")
    Mono<People> people() {
        return directory.loaded().then(Mono.fromSupplier(
                () -> new People(directory.people().stream().map(PersonView::of).toList())));
    }

    @Operation(operationId = "addPerson", summary = "Add a person; without a password one is generated",
            description = "201 with the person and their password (shown only here). The first person can be added "
                    + "only with the shared password or on an open deployment.")
    @PostMapping("/people")
    Mono<ResponseEntity<PersonWithPassword>> addPerson(@RequestBody(required = false) String body,
                                                       ServerWebExchange exchange) {
        return caller(exchange).flatMap(caller -> {
            JsonNode request = validator.validate(RequestSchema.ADD_PERSON, body);
            String email = request.get("email").asString().strip();
            String role = request.get("role").asString();
            if (!directory.hasPeople()) {
                checkBootstrap(caller, role);
            }
            if (directory.personByEmail(email).isPresent()) {
                throw ApiException.conflict("Somebody with the email " + email + " is already on the team");
            }
            String password = request.has("password") ? request.get("password").asString() : Secrets.random(16);
            return Mono.fromCallable(() -> passwords.encode(password)).subscribeOn(hashing)
                    .flatMap(hash -> {
                        Person person = new Person("usr_" + Secrets.random(9), email,
                                request.get("name").asString().strip(), role, false, hash, clock.millis(), 0);
                        return directory.save(person).then(audit(caller, "person.added", person.id(),
                                        person.email(), "Added " + person.email() + " as " + role))
                                .thenReturn(ResponseEntity
                                .created(URI.create("/api/v1/team/people/" + person.id()))
                                .body(new PersonWithPassword(PersonView.of(person),
                                        request.has("password") ? null : password)));
                    });
        });
    }

    private void checkBootstrap(Caller caller, String role) {
        if (!"password".equals(caller.kind()) && !authenticator.open()) {
            throw ApiException.forbidden(
                    "The first person can be added only with the shared password or on an open deployment");
        }
        if (settings.sharedPassword().isEmpty() && !Role.OPERATOR.wire().equals(role)) {
            throw ApiException.badRequest(
                    "Without a shared password the first person must be an operator, or nobody could manage the team");
        }
    }

    @Operation(operationId = "updatePerson", summary = "Change a person's role, or disable or enable them",
            description = "Disabling ends the person's sessions at once.")
    @PatchMapping("/people/{id}")
    Mono<PersonView> updatePerson(@PathVariable String id, @RequestBody(required = false) String body,
                                  ServerWebExchange exchange) {
        return caller(exchange).flatMap(caller -> {
            JsonNode request = validator.validate(RequestSchema.UPDATE_PERSON, body);
            Person person = existing(id);
            Person changed = person;
            if (request.has("role")) {
                changed = changed.withRole(request.get("role").asString());
            }
            if (request.has("disabled")) {
                changed = changed.withDisabled(request.get("disabled").asBoolean());
            }
            checkAnOperatorRemains(person, changed);
            Person updated = changed;
            if (updated.equals(person)) {
                return Mono.just(PersonView.of(updated));
            }
            Mono<Void> recorded = Mono.empty();
            if (!updated.role().equals(person.role())) {
                recorded = recorded.then(audit(caller, "person.role_changed", person.id(), person.email(),
                        "Role of " + person.email() + ": " + person.role() + " → " + updated.role()));
            }
            if (updated.disabled() != person.disabled()) {
                recorded = recorded.then(updated.disabled()
                        ? audit(caller, "person.disabled", person.id(), person.email(), "Disabled " + person.email())
                        : audit(caller, "person.enabled", person.id(), person.email(), "Enabled " + person.email()));
            }
            return directory.save(updated).then(recorded).thenReturn(PersonView.of(updated));
        });
    }

    @Operation(operationId = "resetPassword", summary = "Give a person a new generated password",
            description = "The new password is shown only in this response; the person's sessions end at once.")
    @PostMapping("/people/{id}/reset-password")
    Mono<PersonWithPassword> resetPassword(@PathVariable String id, ServerWebExchange exchange) {
        return caller(exchange).flatMap(caller -> {
            Person person = existing(id);
            String password = Secrets.random(16);
            return Mono.fromCallable(() -> passwords.encode(password)).subscribeOn(hashing)
                    .map(person::withPasswordHash)
                    .flatMap(reset -> directory.save(reset)
                            .then(audit(caller, "person.password_reset", person.id(), person.email(),
                                    "Reset the password of " + person.email()))
                            .thenReturn(new PersonWithPassword(PersonView.of(reset), password)));
        });
    }

    private Person existing(String id) {
        return directory.person(id).orElseThrow(() -> ApiException.notFound("Person " + id + " not found"));
    }

    /** Without a shared password, the last active operator is the only way back in: keep one. */
    private void checkAnOperatorRemains(Person before, Person after) {
        boolean wasActiveOperator = !before.disabled() && Role.OPERATOR.wire().equals(before.role());
        boolean isActiveOperator = !after.disabled() && Role.OPERATOR.wire().equals(after.role());
        if (settings.sharedPassword().isEmpty() && wasActiveOperator && !isActiveOperator
                && directory.people().stream().filter(p -> !p.id().equals(before.id()))
                .noneMatch(p -> !p.disabled() && Role.OPERATOR.wire().equals(p.role()))) {
            throw ApiException.conflict("At least one active operator must remain");
        }
    }

    // ---- tokens --------------------------------------------------------------------------------------------------

    @Operation(operationId = "listTokens", summary = "Every API token, revoked ones too, newest first; never a value")
    @GetMapping("/tokens")
    Mono<Tokens> tokens() {
        return directory.loaded().then(Mono.fromSupplier(() -> new Tokens(directory.tokens().stream()
                .map(token -> TokenView.of(token, directory.lastUsed(token.id()))).toList())));
    }

    @Operation(operationId = "createToken", summary = "Create an API token",
            description = "201 with the token and its value, which is shown only here and starts with owf_. "
                    + "Decisions made with it are recorded as token:<name>, so names are unique in the deployment, "
                    + "revoked tokens' names included (409 on a duplicate). With expiresAt (epoch milliseconds, in "
                    + "the future) the token is refused (401) from then on.")
    @PostMapping("/tokens")
    Mono<ResponseEntity<NewToken>> createToken(@RequestBody(required = false) String body,
                                               ServerWebExchange exchange) {
        return caller(exchange).flatMap(caller -> {
            JsonNode request = validator.validate(RequestSchema.CREATE_TOKEN, body);
            String name = request.get("name").asString();
            // token:<name> is what decisions record: one name, one token, even after it is revoked
            if (directory.tokens().stream().anyMatch(t -> t.name().equals(name))) {
                throw duplicateName(name);
            }
            long now = clock.millis();
            Long expiresAt = request.has("expiresAt") ? request.get("expiresAt").asLong() : null;
            if (expiresAt != null && expiresAt <= now) {
                throw ApiException.badRequest("expiresAt must be in the future");
            }
            String value = Secrets.newTokenValue();
            ApiToken token = new ApiToken("tok_" + Secrets.random(9), name, request.get("role").asString(), false,
                    now, createdBy(caller), value.substring(value.length() - 4), Secrets.sha256(value), expiresAt);
            String expiry = expiresAt == null ? "" : ", expiring " + Instant.ofEpochMilli(expiresAt);
            // the check above is a read of this instance's view: the claim decides between creations at one instant
            return directory.claimTokenName(name, token.id()).flatMap(won -> {
                if (!won || directory.tokens().stream().anyMatch(t -> t.name().equals(name))) {
                    return Mono.error(duplicateName(name));
                }
                return directory.save(token)
                        .then(audit(caller, "token.created", token.id(), name,
                                "Created token " + name + " (" + token.role() + expiry + ")"))
                        .thenReturn(ResponseEntity
                                .created(URI.create("/api/v1/team/tokens/" + token.id()))
                                .body(new NewToken(TokenView.of(token, null), value)));
            });
        });
    }

    private static ApiException duplicateName(String name) {
        return ApiException.conflict("A token named " + name + " already exists");
    }

    @Operation(operationId = "revokeToken", summary = "Revoke an API token; it is refused (401) from then on")
    @DeleteMapping("/tokens/{id}")
    Mono<Map<String, Boolean>> revokeToken(@PathVariable String id, ServerWebExchange exchange) {
        return caller(exchange).flatMap(caller -> {
            ApiToken token = directory.token(id)
                    .orElseThrow(() -> ApiException.notFound("Token " + id + " not found"));
            return (token.revoked() ? Mono.<Void>empty() : directory.save(token.revoke())
                    .then(audit(caller, "token.revoked", token.id(), token.name(), "Revoked token " + token.name())))
                    .thenReturn(Map.of("ok", true));
        });
    }

    // ---- audit log -----------------------------------------------------------------------------------------------

    @Operation(operationId = "listTeamAudit", summary = "The audit log, newest first, a page at a time",
            description = "Every change to the team (person added, role changed, disabled, enabled, password reset; "
                    + "token created, revoked) and to the service clock (advanced, pinned, reset) with who made it. "
                    + "cursor is the next of the page before; limit is 1 to 200, default 50.")
    @GetMapping("/audit")
    Mono<AuditPage> audit(@RequestParam(required = false) String cursor,
                          @RequestParam(required = false) String limit) {
        String after = AuditCursor.decode(cursor);
        int size = pageSize(limit);
        return directory.loaded().then(Mono.fromSupplier(() -> {
            List<AuditEntry> entries = directory.audit(after, size + 1);
            boolean more = entries.size() > size;
            List<AuditEntry> page = more ? entries.subList(0, size) : entries;
            return new AuditPage(page, more ? AuditCursor.encode(page.getLast().id()) : null);
        }));
    }

    private static final int DEFAULT_PAGE = 50;
    private static final int MAX_PAGE = 200;

    private static int pageSize(String limit) {
        if (limit == null) {
            return DEFAULT_PAGE;
        }
        try {
            int size = Integer.parseInt(limit);
            if (size >= 1 && size <= MAX_PAGE) {
                return size;
            }
        } catch (NumberFormatException e) {
            // refused below
        }
        throw ApiException.badRequest("limit must be a whole number from 1 to " + MAX_PAGE);
    }

    /** Records a change to the team once it is saved; the entry names the caller who made it. */
    private Mono<Void> audit(Caller caller, String action, String targetId, String target, String summary) {
        return auditLog.record(caller, action, targetId, target, summary);
    }

    private Mono<Caller> caller(ServerWebExchange exchange) {
        return directory.loaded().then(access.caller(exchange));
    }

    private static String createdBy(Caller caller) {
        return AuditLog.actor(caller);
    }
}

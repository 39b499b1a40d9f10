package io.orderflow.gateway.caller;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.gateway.api.ApiException;
import io.orderflow.schemas.commands.Caller;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

class AccessTest {

    @Test
    void a_caller_below_the_needed_role_gets_403() {
        Access access = new Access(exchange -> Mono.just(new Caller("token", "token:ci", "viewer")));
        StepVerifier.create(access.require(null, Role.OPERATOR))
                .expectErrorSatisfies(e -> {
                    assertThat(((ApiException) e).status().value()).isEqualTo(403);
                    assertThat(e.getMessage()).isEqualTo("This needs the Operator role.");
                })
                .verify();
        StepVerifier.create(access.require(null, Role.VIEWER)).expectNextCount(1).verifyComplete();
    }
}

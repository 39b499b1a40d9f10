package io.orderflow.gateway;

import java.util.Map;
import io.swagger.v3.oas.annotations.Operation;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
class HealthController {

    @Operation(operationId = "health")
    @GetMapping("/health")
    Map<String, Object> health() {
        return Map.of("ok", true, "service", "gateway");
    }
}

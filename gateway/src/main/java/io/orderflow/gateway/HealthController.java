package io.orderflow.gateway;

import java.util.Map;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

@RestController
class HealthController {

    @GetMapping("/health")
    Map<String, Object> health() {
        return Map.of("ok", true, "service", "gateway");
    }
}

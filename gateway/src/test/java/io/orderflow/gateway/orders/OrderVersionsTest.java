package io.orderflow.gateway.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.gateway.api.ApiException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;

/** The header and parameter rules of reading your own writes, without a server. */
class OrderVersionsTest {

    @Test
    void if_match_names_one_strong_tag_or_any_version() {
        assertThat(OrderVersions.ifMatch("\"7\"")).isEqualTo(7L);
        assertThat(OrderVersions.ifMatch(" 7 ")).isEqualTo(7L);
        assertThat(OrderVersions.ifMatch(null)).isNull();
        assertThat(OrderVersions.ifMatch("*")).isNull();
        for (String bad : new String[] {"W/\"7\"", "\"7\", \"8\"", "\"seven\"", "\"\"", "\"-1\"",
                "\"1234567890123456789\""}) {
            assertThatThrownBy(() -> OrderVersions.ifMatch(bad)).as(bad)
                    .isInstanceOfSatisfying(ApiException.class,
                            e -> assertThat(e.status()).isEqualTo(HttpStatus.BAD_REQUEST));
        }
    }

    @Test
    void if_none_match_compares_weakly_over_a_list() {
        assertThat(OrderVersions.noneMatch("\"4\"", 4)).isTrue();
        assertThat(OrderVersions.noneMatch("W/\"4\"", 4)).isTrue();
        assertThat(OrderVersions.noneMatch("\"3\", \"4\"", 4)).isTrue();
        assertThat(OrderVersions.noneMatch("*", 4)).isTrue();
        assertThat(OrderVersions.noneMatch("\"3\"", 4)).isFalse();
        assertThat(OrderVersions.noneMatch("garbage", 4)).isFalse();
        assertThat(OrderVersions.noneMatch(null, 4)).isFalse();
    }

    @Test
    void min_version_is_a_whole_number() {
        assertThat(OrderVersions.minVersion("12")).isEqualTo(12L);
        assertThat(OrderVersions.minVersion(null)).isNull();
        assertThatThrownBy(() -> OrderVersions.minVersion("-1")).isInstanceOf(ApiException.class);
        assertThatThrownBy(() -> OrderVersions.minVersion("1e3")).isInstanceOf(ApiException.class);
    }

    @Test
    void the_version_of_an_answer_is_its_etag_or_else_the_views_version() {
        byte[] view = "{\"orderId\":\"ord_1\",\"flow\":{\"version\":3},\"version\":9}".getBytes(StandardCharsets.UTF_8);
        assertThat(OrderVersions.versionOf(ResponseEntity.ok().eTag("\"9\"").body(view))).isEqualTo(9L);
        assertThat(OrderVersions.versionOf(ResponseEntity.ok().body(view))).isEqualTo(9L);

        ResponseEntity<byte[]> tagged = OrderVersions.conditional(ResponseEntity.ok().body(view), null);
        assertThat(tagged.getHeaders().getETag()).isEqualTo("\"9\"");
        assertThat(tagged.getBody()).isEqualTo(view);
        ResponseEntity<byte[]> notModified = OrderVersions.conditional(ResponseEntity.ok().body(view), "\"9\"");
        assertThat(notModified.getStatusCode()).isEqualTo(HttpStatus.NOT_MODIFIED);
        assertThat(notModified.getBody()).isNull();
        ResponseEntity<byte[]> missing = ResponseEntity.status(HttpStatus.NOT_FOUND).body(new byte[0]);
        assertThat(OrderVersions.conditional(missing, "*")).isSameAs(missing);
    }
}

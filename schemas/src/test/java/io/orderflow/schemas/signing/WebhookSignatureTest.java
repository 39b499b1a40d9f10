package io.orderflow.schemas.signing;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.schemas.signing.WebhookSignature.Result;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class WebhookSignatureTest {

    private static final String SECRET = "whsec_test";
    private static final String BODY = "{\"orderId\":\"ord_1\",\"event\":\"payment.received\",\"payload\":{\"amount\":12.5}}";
    private static final Instant NOW = Instant.parse("2026-11-22T08:00:00Z");

    @Test
    void signsTheTimestampADotAndTheRawBody() throws Exception {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
        String expected = HexFormat.of().formatHex(
                mac.doFinal((NOW.getEpochSecond() + "." + BODY).getBytes(StandardCharsets.UTF_8)));

        assertThat(WebhookSignature.sign(SECRET, NOW, BODY))
                .isEqualTo("t=" + NOW.getEpochSecond() + ",v1=" + expected);
    }

    @Test
    void aDeliveryDuringARotationVerifiesWithEitherSecret() {
        String fresh = WebhookSignature.sign("whsec_new", NOW, BODY);
        String old = WebhookSignature.sign(SECRET, NOW, BODY);
        String both = fresh + old.substring(old.indexOf(",v1="));
        byte[] body = BODY.getBytes(StandardCharsets.UTF_8);

        assertThat(WebhookSignature.verifyDelivery("whsec_new", both, body, NOW)).isEqualTo(Result.VALID);
        assertThat(WebhookSignature.verifyDelivery(SECRET, both, body, NOW)).isEqualTo(Result.VALID);
        assertThat(WebhookSignature.verifyDelivery(SECRET, old, body, NOW)).isEqualTo(Result.VALID);
        assertThat(WebhookSignature.verifyDelivery("whsec_other", both, body, NOW)).isEqualTo(Result.MISMATCH);
        assertThat(WebhookSignature.verifyDelivery(SECRET, both, body, NOW.plusSeconds(301))).isEqualTo(Result.STALE);
        assertThat(WebhookSignature.verify(SECRET, both, body, NOW)).isEqualTo(Result.MALFORMED); // inbound: one v1
    }

    @Test
    void aDeliveryHeaderNeedsOneTimestampAndAtMostFourSignatures() {
        String signed = WebhookSignature.sign(SECRET, NOW, BODY);
        String v1 = signed.substring(signed.indexOf(",v1=") + 1);
        byte[] body = BODY.getBytes(StandardCharsets.UTF_8);

        assertThat(WebhookSignature.verifyDelivery(SECRET, null, body, NOW)).isEqualTo(Result.MISSING);
        assertThat(WebhookSignature.verifyDelivery(SECRET, v1, body, NOW)).isEqualTo(Result.MALFORMED);
        assertThat(WebhookSignature.verifyDelivery(SECRET, signed + ",t=1", body, NOW)).isEqualTo(Result.MALFORMED);
        assertThat(WebhookSignature.verifyDelivery(SECRET, signed + ("," + v1).repeat(3), body, NOW))
                .isEqualTo(Result.VALID);
        assertThat(WebhookSignature.verifyDelivery(SECRET, signed + ("," + v1).repeat(4), body, NOW))
                .isEqualTo(Result.MALFORMED);
    }

    @Test
    void acceptsItsOwnSignature() {
        assertThat(WebhookSignature.verify(SECRET, WebhookSignature.sign(SECRET, NOW, BODY), BODY, NOW))
                .isEqualTo(Result.VALID);
    }

    @Test
    void acceptsTimestampsUpToFiveMinutesAwayEitherWay() {
        assertThat(verifyAt(NOW.minusSeconds(300), NOW)).isEqualTo(Result.VALID);
        assertThat(verifyAt(NOW.plusSeconds(300), NOW)).isEqualTo(Result.VALID);
    }

    @Test
    void rejectsATimestamp301SecondsOld() {
        assertThat(verifyAt(NOW.minusSeconds(301), NOW)).isEqualTo(Result.STALE);
    }

    @Test
    void rejectsATimestamp301SecondsAhead() {
        assertThat(verifyAt(NOW.plusSeconds(301), NOW)).isEqualTo(Result.STALE);
    }

    @Test
    void rejectsABodyChangedByOneByte() {
        byte[] body = BODY.getBytes(StandardCharsets.UTF_8);
        String header = WebhookSignature.sign(SECRET, NOW, body);
        byte[] changed = body.clone();
        changed[changed.length - 3] ^= 1;

        assertThat(WebhookSignature.verify(SECRET, header, changed, NOW)).isEqualTo(Result.MISMATCH);
    }

    @Test
    void rejectsASignatureMadeWithAnotherSecret() {
        String header = WebhookSignature.sign("whsec_other", NOW, BODY);

        assertThat(WebhookSignature.verify(SECRET, header, BODY, NOW)).isEqualTo(Result.MISMATCH);
    }

    @Test
    void rejectsAHeaderWithTwoV1Entries() {
        String good = WebhookSignature.sign(SECRET, NOW, BODY);
        String wrong = WebhookSignature.sign("whsec_other", NOW, BODY);
        String v1Good = good.substring(good.indexOf(",v1=") + 4);
        String v1Wrong = wrong.substring(wrong.indexOf(",v1=") + 4);

        assertThat(WebhookSignature.verify(SECRET, good + ",v1=" + v1Wrong, BODY, NOW)).isEqualTo(Result.MALFORMED);
        assertThat(WebhookSignature.verify(SECRET, wrong + ",v1=" + v1Good, BODY, NOW)).isEqualTo(Result.MALFORMED);
    }

    @Test
    void rejectsAHeaderWithTwoTimestamps() {
        String good = WebhookSignature.sign(SECRET, NOW, BODY);

        assertThat(WebhookSignature.verify(SECRET, "t=" + NOW.getEpochSecond() + "," + good, BODY, NOW))
                .isEqualTo(Result.MALFORMED);
    }

    @ParameterizedTest
    @NullAndEmptySource
    @ValueSource(strings = {"  "})
    void reportsAMissingHeader(String header) {
        assertThat(WebhookSignature.verify(SECRET, header, BODY, NOW)).isEqualTo(Result.MISSING);
    }

    private static final String HEX64 = "ab".repeat(32);

    static List<String> malformedHeaders() {
        return List.of(
                "garbage",
                "t=1795334400",
                "v1=" + HEX64,
                "t=abc,v1=" + HEX64,
                "t=-5,v1=" + HEX64,
                "t=1795334400,v1=xyz",
                "t=1795334400,v1=" + "ab".repeat(31),
                "t=1795334400,v1=" + "ab".repeat(33),
                "t=1795334400,v0=" + HEX64,
                "t=1795334400,v1=" + HEX64 + ",extra=1",
                "t=1795334400,,v1=" + HEX64,
                "=1795334400,v1=" + HEX64,
                "t=99999999999999999999,v1=" + HEX64);
    }

    @ParameterizedTest
    @MethodSource("malformedHeaders")
    void rejectsMalformedHeaders(String header) {
        assertThat(WebhookSignature.verify(SECRET, header, BODY, NOW)).isEqualTo(Result.MALFORMED);
    }

    @Test
    void toleratesSpacesAndUpperCaseHex() {
        String header = WebhookSignature.sign(SECRET, NOW, BODY);
        String spaced = header.replace(",", ", ").replace("v1=", "v1=").toUpperCase().replace("T=", "t=")
                .replace("V1=", "v1=");

        assertThat(WebhookSignature.verify(SECRET, spaced, BODY, NOW)).isEqualTo(Result.VALID);
    }

    @Test
    void onlyValidIsValid() {
        assertThat(Result.VALID.valid()).isTrue();
        assertThat(Result.MISSING.valid()).isFalse();
        assertThat(Result.MALFORMED.valid()).isFalse();
        assertThat(Result.STALE.valid()).isFalse();
        assertThat(Result.MISMATCH.valid()).isFalse();
    }

    private static Result verifyAt(Instant signedAt, Instant now) {
        return WebhookSignature.verify(SECRET, WebhookSignature.sign(SECRET, signedAt, BODY), BODY, now);
    }
}

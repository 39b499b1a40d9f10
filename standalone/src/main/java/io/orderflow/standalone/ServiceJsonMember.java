package io.orderflow.standalone;

import ch.qos.logback.classic.spi.ILoggingEvent;
import org.springframework.boot.json.JsonWriter;
import org.springframework.boot.logging.structured.StructuredLoggingJsonMembersCustomizer;

/**
 * {@code service} in the standalone system's JSON log lines ({@code LOG_FORMAT=json}): the service each line came
 * from, as {@code %service} names it in text ({@link ServiceTagConverter}), rather than the name of whichever service's
 * context set up logging first.
 */
public final class ServiceJsonMember implements StructuredLoggingJsonMembersCustomizer<ILoggingEvent> {

    @Override
    public void customize(JsonWriter.Members<ILoggingEvent> members) {
        members.add("service", (JsonWriter.Extractor<ILoggingEvent, String>) ServiceTagConverter::serviceOf);
    }
}

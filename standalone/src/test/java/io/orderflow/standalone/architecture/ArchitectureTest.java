package io.orderflow.standalone.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.fields;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaConstructorCall;
import com.tngtech.archunit.core.domain.JavaFieldAccess;
import com.tngtech.archunit.core.domain.JavaStaticInitializer;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The module boundaries of DESIGN.md, checked on the compiled production classes of every module: the four services
 * never use each other's code, the contract module knows no framework, only the standalone launcher uses the
 * in-process broker (kafka-embedded, package {@code io.orderflow.kafka.embedded}, apart from kafka-support's
 * {@code io.orderflow.kafka}), packages form no cycles, and nothing keeps
 * mutable state in static fields (nor in final static collections, maps and atomics, but for a few named ones).
 */
class ArchitectureTest {

    /** The modules' main classes, from their target/classes or their jars, without test classes or test jars. */
    private static final JavaClasses PRODUCTION = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .withImportOption(location -> !location.contains("-tests.jar"))
            .importPackages("io.orderflow");

    private static final List<String> SERVICES = List.of("io.orderflow.gateway..", "io.orderflow.processor..",
            "io.orderflow.runner..", "io.orderflow.dispatcher..");

    @Test
    void servicesNeverUseEachOthersCode() {
        for (String service : SERVICES) {
            String[] others = SERVICES.stream().filter(other -> !other.equals(service)).toArray(String[]::new);
            noClasses().that().resideInAPackage(service)
                    .should().dependOnClassesThat().resideInAnyPackage(others)
                    .because("services talk over Kafka topics and HTTP, through the contract in schemas")
                    .check(PRODUCTION);
        }
    }

    @Test
    void theContractModuleKnowsNoSpringAndNoKafkaStreams() {
        noClasses().that().resideInAPackage("io.orderflow.schemas..")
                .should().dependOnClassesThat().resideInAnyPackage("org.springframework..", "org.apache.kafka.streams..")
                .because("a client of the topics can depend on schemas alone")
                .check(PRODUCTION);
    }

    @Test
    void onlyTheStandaloneLauncherUsesTheInProcessBroker() {
        noClasses().that().resideOutsideOfPackages("io.orderflow.standalone..", "io.orderflow.kafka.embedded..")
                .should().dependOnClassesThat().resideInAPackage("io.orderflow.kafka.embedded..")
                .because("kafka-embedded (the Kafka server) ships in the standalone jar only, no service image")
                .check(PRODUCTION);
    }

    @Test
    void packagesFormNoCycles() {
        slices().matching("io.orderflow.(**)").should().beFreeOfCycles().check(PRODUCTION);
    }

    @Test
    void noStaticFieldIsWritable() {
        fields().that().areStatic().should().beFinal()
                .because("state shared through static fields outlives and crosses the services of one JVM")
                .check(PRODUCTION);
    }

    /**
     * A final static field can still hold mutable state (a registry map, a counter), which every service context of
     * the JVM would share: no class makes a mutable collection, map or atomic while it initializes its static fields.
     * Tables built there are copied into unmodifiable ones ({@code List.of}, {@code Map.copyOf}, {@code toList()}).
     */
    @Test
    void noStaticFieldHoldsMutableState() {
        classes().should(new ArchCondition<JavaClass>("keep no mutable collection, map or atomic in a static field") {
            @Override
            public void check(JavaClass type, ConditionEvents events) {
                if (JVM_WIDE_BY_DESIGN.contains(type.getName())) {
                    return;
                }
                type.getStaticInitializer().ifPresent(init -> init.getConstructorCallsFromSelf().stream()
                        .filter(call -> MUTABLE.stream().anyMatch(call.getTargetOwner()::isAssignableTo))
                        .filter(call -> storedInStaticField(init, call))
                        .forEach(call -> events.add(SimpleConditionEvent.violated(call, call.getDescription()))));
            }
        }).because("state shared through static fields outlives and crosses the services of one JVM")
                .check(PRODUCTION);
    }

    /**
     * The static state that is meant to be one per JVM, each for its reason; nothing else may join it without one.
     */
    private static final java.util.Set<String> JVM_WIDE_BY_DESIGN = java.util.Set.of(
            // listens to Kafka's broker metrics registry, which is itself one per JVM: installed once per JVM
            "io.orderflow.kafka.embedded.UniformRequestHistograms",
            // numbers reader threads, whose names must differ across every context of the JVM
            "io.orderflow.kafka.TopicReader",
            // caches of parsed expressions and templates: the same immutable parse for every context
            "io.orderflow.runner.scope.Expressions", "io.orderflow.runner.scope.Templates",
            // makes an empty list and map only to keep the classes of their read-only wrappers
            "io.orderflow.processor.order.OrderState");

    private static final List<Class<?>> MUTABLE = List.of(java.util.Collection.class, java.util.Map.class,
            java.util.concurrent.atomic.AtomicInteger.class, java.util.concurrent.atomic.AtomicLong.class,
            java.util.concurrent.atomic.AtomicBoolean.class, java.util.concurrent.atomic.AtomicReference.class,
            java.util.concurrent.atomic.LongAdder.class);

    /** Whether the initializer stores an object of the call's type in a static field of its class directly. */
    private static boolean storedInStaticField(JavaStaticInitializer init, JavaConstructorCall call) {
        return init.getFieldAccesses().stream()
                .filter(access -> access.getAccessType() == JavaFieldAccess.AccessType.SET)
                .anyMatch(access -> access.getTarget().resolveMember()
                        .map(field -> field.getModifiers().contains(JavaModifier.STATIC)
                                && call.getTargetOwner().isAssignableTo(field.getRawType().getName()))
                        .orElse(false));
    }
}

package io.orderflow.standalone.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.fields;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The module boundaries of DESIGN.md, checked on the compiled production classes of every module: the four services
 * never use each other's code, the contract module knows no framework, packages form no cycles, and nothing keeps
 * mutable state in static fields.
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
    void packagesFormNoCycles() {
        slices().matching("io.orderflow.(**)").should().beFreeOfCycles().check(PRODUCTION);
    }

    @Test
    void noStaticFieldIsWritable() {
        fields().that().areStatic().should().beFinal()
                .because("state shared through static fields outlives and crosses the services of one JVM")
                .check(PRODUCTION);
    }
}

package io.orderflow.standalone;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;

/**
 * The README's run command ({@code ./mvnw -B -q -pl standalone spring-boot:run}) keeps the data under the repository
 * root's {@code ./data}: spring-boot:run starts the launcher in the repository root (the directory holding
 * {@code .mvn}), not in {@code standalone/}, where the default {@code DATA_DIR=./data} would land otherwise.
 */
class RunCommandDataDirTest {

    @Test
    void springBootRunStartsTheLauncherInTheRepositoryRoot() throws Exception {
        Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Path.of("pom.xml").toFile());

        String workingDirectory = XPathFactory.newInstance().newXPath().evaluate(
                "/project/build/plugins/plugin[artifactId='spring-boot-maven-plugin']/configuration/workingDirectory",
                pom);

        assertThat(workingDirectory).isEqualTo("${maven.multiModuleProjectDirectory}");
        assertThat(Path.of("..", ".mvn")).as("the repository root holds .mvn").isDirectory();
        assertThat(StandaloneSettings.fromEnvironment(java.util.Map.of()).dataDir()).isEqualTo(Path.of("./data"));
    }

    /**
     * spring-boot:run's optimized launch would add -XX:TieredStopAtLevel=1 (C1 only): the run command has tiered
     * compilation, the optimizing compiler included and C1 not taken away (it warms a cold system up), and Java thread
     * priorities that Linux applies (docs/performance.md, "JVM settings" and "Warm-up").
     */
    @Test
    void springBootRunRunsWithTheOptimizingCompiler() throws Exception {
        Document pom = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(Path.of("pom.xml").toFile());
        var xpath = XPathFactory.newInstance().newXPath();
        String configuration = "/project/build/plugins/plugin[artifactId='spring-boot-maven-plugin']/configuration/";

        assertThat(xpath.evaluate(configuration + "optimizedLaunch", pom)).isEqualTo("false");
        assertThat(xpath.evaluate(configuration + "jvmArguments", pom)).isEqualTo("${standalone.jvmArgs}");
        assertThat(xpath.evaluate("/project/properties/standalone.jvmArgs", pom))
                .doesNotContain("TieredStopAtLevel", "-XX:-TieredCompilation")
                .contains("-Xmx", "-XX:ThreadPriorityPolicy=1");
    }
}

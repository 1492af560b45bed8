package io.txlock.it;

import java.io.File;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.ByteArrayAsset;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * Test WARs packaged as an application packages txlock: the library jars in {@code WEB-INF/lib}, the JDBC
 * driver next to them, and two datasources defined by the application itself with {@code @DataSourceDefinition}:
 * the JTA datasource {@value #JTA} and a non-JTA one on the same database, {@value #NON_JTA}, for LEASE locks taken
 * inside transactions. Each WAR gets a fresh database namespace.
 */
final class Deployments {

    /** The application's JTA datasource. */
    static final String JTA = "java:app/jdbc/txlock";
    /** A datasource on the same database whose connections never join a JTA transaction. */
    static final String NON_JTA = "java:app/jdbc/txlock-nonjta";

    private Deployments() {
    }

    /**
     * @param name the WAR's name
     * @param packages the application's packages (beans, EJBs) to deploy
     * @return the WAR, without its test class (Arquillian adds it)
     */
    static WebArchive war(String name, Package... packages) {
        return war(name, new Class<?>[0]).addPackages(false, packages);
    }

    /**
     * @param name the WAR's name
     * @param classes the application's classes to deploy
     * @return the WAR, without its test class (Arquillian adds it)
     */
    static WebArchive war(String name, Class<?>... classes) {
        ContainerDatabase db = ContainerDatabase.create();
        WebArchive war = ShrinkWrap.create(WebArchive.class, name + ".war")
                .addClasses(Deployments.class, ContainerDatabase.class, DataSourceDefinitions.class)
                .addClasses(classes)
                .addAsLibraries(jar("txlock.jar.lock-manager"), jar("txlock.jar.sql"), jar("txlock.jar.jpa-entities"),
                        jar("txlock.jar.slf4j-api"), jar("txlock.jar.assertj"), jar(db.driverJarProperty()))
                .add(new ByteArrayAsset(DataSourceDefinitions.compile(db)),
                        "WEB-INF/classes/" + DataSourceDefinitions.CLASS_NAME.replace('.', '/') + ".class")
                .addAsWebInfResource(new StringAsset("<beans xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" version=\"4.0\""
                        + " bean-discovery-mode=\"annotated\"/>"), "beans.xml");
        return war;
    }

    private static File jar(String property) {
        String path = System.getProperty(property);
        if (path == null || !new File(path).isFile()) {
            throw new IllegalStateException("-D" + property + " does not name a jar (" + path + "): run the suite through"
                    + " the failsafe executions of container-tests/pom.xml, in the reactor (mvn -pl container-tests -am verify)");
        }
        return new File(path);
    }
}

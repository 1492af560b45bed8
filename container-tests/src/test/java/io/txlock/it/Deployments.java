package io.txlock.it;

import java.io.File;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * Test WARs packaged as an application packages txlock: the library jars in {@code WEB-INF/lib}, the JDBC
 * driver next to them, and two datasources defined by the application itself in {@code web.xml}: the JTA
 * datasource {@value #JTA} and a non-JTA one on the same database, {@value #NON_JTA}, for LEASE locks taken
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
        ContainerDatabase db = ContainerDatabase.create();
        WebArchive war = ShrinkWrap.create(WebArchive.class, name + ".war")
                .addClasses(Deployments.class, ContainerDatabase.class)
                .addPackages(false, packages)
                .addAsLibraries(jar("txlock.jar.lock-manager"), jar("txlock.jar.sql"), jar("txlock.jar.jpa-entities"),
                        jar("txlock.jar.slf4j-api"), jar("txlock.jar.assertj"), jar(db.driverJarProperty()))
                .setWebXML(new StringAsset(webXml(db)))
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

    private static String webXml(ContainerDatabase db) {
        return "<web-app xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" version=\"6.0\">\n"
                + dataSource(db, JTA, true, 30)
                + dataSource(db, NON_JTA, false, 15)
                + "</web-app>\n";
    }

    private static String dataSource(ContainerDatabase db, String name, boolean transactional, int maxPool) {
        return "  <data-source>\n"
                + "    <name>" + name + "</name>\n"
                + "    <class-name>" + db.dataSourceClass() + "</class-name>\n"
                + "    <url>" + xml(db.url) + "</url>\n"
                + "    <user>" + xml(db.user) + "</user>\n"
                + "    <password></password>\n"
                + "    <transactional>" + transactional + "</transactional>\n"
                + "    <max-pool-size>" + maxPool + "</max-pool-size>\n"
                + "    <min-pool-size>0</min-pool-size>\n"
                + "  </data-source>\n";
    }

    private static String xml(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}

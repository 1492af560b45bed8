package io.txlock.it;

import java.io.File;
import org.jboss.shrinkwrap.api.ShrinkWrap;
import org.jboss.shrinkwrap.api.asset.ByteArrayAsset;
import org.jboss.shrinkwrap.api.asset.StringAsset;
import org.jboss.shrinkwrap.api.importer.ZipImporter;
import org.jboss.shrinkwrap.api.spec.EnterpriseArchive;
import org.jboss.shrinkwrap.api.spec.ResourceAdapterArchive;
import org.jboss.shrinkwrap.api.spec.WebArchive;

/**
 * The resource adapter deployed as users deploy it: the {@code txlock-lock-adapter.rar} that {@code mvn verify} built,
 * inside an EAR next to the application's WAR, its {@code META-INF/ironjacamar.xml} set to the application's
 * datasources. The WAR carries no txlock jar: the EAR's modules see the adapter's classes. The adapter's connection
 * factories: {@value #LOCKS} and {@value #LOCKS_B} (two lock managers on the same database, as two nodes of a
 * cluster: they exclude each other only in the database), {@value #LEASES} (lease rows) and {@value #REDIS} (Redis at
 * 127.0.0.1:6379).
 */
final class AdapterDeployments {

    /** The JDBC connection factory the application uses. */
    static final String LOCKS = "java:/txlock/locks";
    /** A second JDBC connection factory: another node. */
    static final String LOCKS_B = "java:/txlock/locks-b";
    /** A JDBC connection factory with the OPTIMISTIC_VERSION strategy (lease rows), on names of its own. */
    static final String LEASES = "java:/txlock/leases";
    /** The Redis connection factory. */
    static final String REDIS = "java:/txlock/redis";

    private AdapterDeployments() {
    }

    /**
     * @param name the EAR's name
     * @param db the database namespace
     * @param classes the application's and the test's classes, in the WAR
     * @return the EAR: the adapter, and the WAR with the datasources on {@code db}
     */
    static EnterpriseArchive ear(String name, ContainerDatabase db, Class<?>... classes) {
        return ShrinkWrap.create(EnterpriseArchive.class, name + ".ear")
                .addAsModule(adapter(db, Deployments.JTA, Deployments.NON_JTA))
                .addAsModule(war(name, db, classes));
    }

    /**
     * @param name the EAR's name
     * @param db the database namespace, for the Redis key prefix
     * @param jta the JTA datasource of every JDBC connection factory: a global name that another deployment binds
     * @param nonJta their non-JTA datasource
     * @param classes the application's classes, in the WAR
     * @return the EAR: the adapter on those datasources, and a WAR without datasources of its own
     */
    static EnterpriseArchive earOnSharedDataSources(String name, ContainerDatabase db, String jta, String nonJta,
            Class<?>... classes) {
        return ShrinkWrap.create(EnterpriseArchive.class, name + ".ear")
                .addAsModule(adapter(db, jta, nonJta))
                .addAsModule(ShrinkWrap.create(WebArchive.class, name + ".war").addClasses(classes)
                        .addAsWebInfResource(new StringAsset("<beans xmlns=\"https://jakarta.ee/xml/ns/jakartaee\""
                                + " version=\"4.0\" bean-discovery-mode=\"annotated\"/>"), "beans.xml"));
    }

    /** @return the adapter's .rar with the test's ironjacamar.xml */
    private static ResourceAdapterArchive adapter(ContainerDatabase db, String jta, String nonJta) {
        File rar = file("txlock.rar.adapter");
        ResourceAdapterArchive archive = ShrinkWrap.create(ZipImporter.class, "txlock-lock-adapter.rar").importFrom(rar)
                .as(ResourceAdapterArchive.class);
        archive.delete("META-INF/ironjacamar.xml");
        return archive.addAsManifestResource(new StringAsset(ironJacamarXml(db, jta, nonJta)), "ironjacamar.xml");
    }

    /**
     * @param name the WAR's name
     * @param db the database namespace
     * @param classes the WAR's classes
     * @return the WAR with the datasources on {@code db}, the driver and AssertJ, and no txlock jar
     */
    static WebArchive war(String name, ContainerDatabase db, Class<?>... classes) {
        return ShrinkWrap.create(WebArchive.class, name + ".war")
                .addClasses(AdapterDeployments.class, ContainerDatabase.class, DataSourceDefinitions.class)
                .addClasses(classes)
                .addAsLibraries(file("txlock.jar.assertj"), file(db.driverJarProperty()))
                .add(new ByteArrayAsset(DataSourceDefinitions.compile(db)),
                        "WEB-INF/classes/" + DataSourceDefinitions.CLASS_NAME.replace('.', '/') + ".class")
                .addAsWebInfResource(new StringAsset("<beans xmlns=\"https://jakarta.ee/xml/ns/jakartaee\" version=\"4.0\""
                        + " bean-discovery-mode=\"annotated\"/>"), "beans.xml");
    }

    private static String ironJacamarXml(ContainerDatabase db, String jta, String nonJta) {
        return "<ironjacamar>\n  <transaction-support>NoTransaction</transaction-support>\n  <connection-definitions>\n"
                + jdbc(LOCKS, "txlock-locks", "SELECT_FOR_UPDATE", jta, nonJta)
                + jdbc(LOCKS_B, "txlock-locks-b", "SELECT_FOR_UPDATE", jta, nonJta)
                + jdbc(LEASES, "txlock-leases", "OPTIMISTIC_VERSION", jta, nonJta)
                + "    <connection-definition class-name=\"io.txlock.adapter.TxlockManagedConnectionFactory\" jndi-name=\""
                + REDIS + "\" pool-name=\"txlock-redis\">\n"
                + "      <config-property name=\"backend\">redis</config-property>\n"
                + "      <config-property name=\"redisEndpoints\">127.0.0.1:6379</config-property>\n"
                + "      <config-property name=\"redisKeyPrefix\">" + db.namespace + ":</config-property>\n"
                + "    </connection-definition>\n"
                + "  </connection-definitions>\n</ironjacamar>\n";
    }

    private static String jdbc(String jndiName, String pool, String strategy, String jta, String nonJta) {
        return "    <connection-definition class-name=\"io.txlock.adapter.TxlockManagedConnectionFactory\" jndi-name=\""
                + jndiName + "\" pool-name=\"" + pool + "\">\n"
                + "      <config-property name=\"backend\">jdbc</config-property>\n"
                + "      <config-property name=\"dataSourceJndiName\">" + jta + "</config-property>\n"
                + "      <config-property name=\"leaseDataSourceJndiName\">" + nonJta + "</config-property>\n"
                + "      <config-property name=\"strategy\">" + strategy + "</config-property>\n"
                + "    </connection-definition>\n";
    }

    static File file(String property) {
        String path = System.getProperty(property);
        if (path == null || !new File(path).isFile()) {
            throw new IllegalStateException("-D" + property + " does not name a file (" + path + "): run the suite through"
                    + " the failsafe executions of container-tests/pom.xml, in the reactor (mvn -pl container-tests -am verify)");
        }
        return new File(path);
    }
}

package io.txlock.jpa;

import io.txlock.entity.MethodLock;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.SharedCacheMode;
import jakarta.persistence.ValidationMode;
import jakarta.persistence.spi.ClassTransformer;
import jakarta.persistence.spi.PersistenceUnitInfo;
import jakarta.persistence.spi.PersistenceUnitTransactionType;
import java.net.URL;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import javax.sql.DataSource;
import org.hibernate.jpa.HibernatePersistenceProvider;

/**
 * Bootstraps Hibernate as a Jakarta EE container does ({@code createContainerEntityManagerFactory}), without a
 * {@code persistence.xml}: a resource-local (or JTA) persistence unit over a test datasource with the given entities.
 */
public final class TestPersistenceUnit {

    static {
        // Hibernate logs through jboss-logging; send it to SLF4J (simplelogger.properties) instead of JUL
        System.setProperty("org.jboss.logging.provider", "slf4j");
    }

    private TestPersistenceUnit() {
    }

    /**
     * @param dataSource the database
     * @param properties extra Hibernate or JPA properties
     * @param entities the managed classes
     * @return a new factory; close it
     */
    public static EntityManagerFactory create(DataSource dataSource, Map<String, Object> properties, Class<?>... entities) {
        Map<String, Object> all = new HashMap<>();
        all.put("hibernate.hbm2ddl.auto", "none");
        all.put("hibernate.boot.allow_jdbc_metadata_access", "true");
        all.putAll(properties);
        return new HibernatePersistenceProvider().createContainerEntityManagerFactory(
                new Info(dataSource, false, List.of(entities).stream().map(Class::getName).toList()), all);
    }

    /**
     * A JTA persistence unit, as a Jakarta EE container bootstraps it, for Narayana standalone.
     *
     * @param jtaDataSource a datasource whose connections enlist in the JTA transaction
     * @param entities the managed classes
     * @return a new factory; close it
     */
    public static EntityManagerFactory jta(DataSource jtaDataSource, Class<?>... entities) {
        Map<String, Object> all = new HashMap<>();
        all.put("hibernate.hbm2ddl.auto", "none");
        all.put("hibernate.transaction.jta.platform", "org.hibernate.engine.transaction.jta.platform.internal.JBossStandAloneJtaPlatform");
        return new HibernatePersistenceProvider().createContainerEntityManagerFactory(
                new Info(jtaDataSource, true, List.of(entities).stream().map(Class::getName).toList()), all);
    }

    /**
     * @param dataSource the database, whose lock table is {@code method_lock}
     * @return a factory managing {@link MethodLock}
     */
    public static EntityManagerFactory methodLock(DataSource dataSource) {
        return create(dataSource, Map.of(), MethodLock.class);
    }

    private record Info(DataSource dataSource, boolean jta, List<String> classes) implements PersistenceUnitInfo {
        @Override
        public String getPersistenceUnitName() {
            return "txlock-test";
        }

        @Override
        public String getPersistenceProviderClassName() {
            return HibernatePersistenceProvider.class.getName();
        }

        @Override
        public PersistenceUnitTransactionType getTransactionType() {
            return jta ? PersistenceUnitTransactionType.JTA : PersistenceUnitTransactionType.RESOURCE_LOCAL;
        }

        @Override
        public DataSource getJtaDataSource() {
            return jta ? dataSource : null;
        }

        @Override
        public DataSource getNonJtaDataSource() {
            return jta ? null : dataSource;
        }

        @Override
        public List<String> getMappingFileNames() {
            return List.of();
        }

        @Override
        public List<URL> getJarFileUrls() {
            return List.of();
        }

        @Override
        public URL getPersistenceUnitRootUrl() {
            return null;
        }

        @Override
        public List<String> getManagedClassNames() {
            return classes;
        }

        @Override
        public boolean excludeUnlistedClasses() {
            return true;
        }

        @Override
        public SharedCacheMode getSharedCacheMode() {
            return SharedCacheMode.NONE;
        }

        @Override
        public ValidationMode getValidationMode() {
            return ValidationMode.NONE;
        }

        @Override
        public Properties getProperties() {
            return new Properties();
        }

        @Override
        public String getPersistenceXMLSchemaVersion() {
            return "3.1";
        }

        @Override
        public ClassLoader getClassLoader() {
            return TestPersistenceUnit.class.getClassLoader();
        }

        @Override
        public void addTransformer(ClassTransformer transformer) {
        }

        @Override
        public ClassLoader getNewTempClassLoader() {
            return null;
        }
    }
}

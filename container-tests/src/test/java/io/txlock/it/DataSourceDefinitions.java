package io.txlock.it;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.URI;
import java.util.List;
import javax.tools.FileObject;
import javax.tools.ForwardingJavaFileManager;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileManager;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;

/**
 * The application's datasources as applications declare them, with {@code @DataSourceDefinition}: a class
 * carrying the annotations, compiled when the deployment is built, because each deployment's URL names its own
 * fresh namespace. (WildFly cannot take the isolation level from a {@code web.xml} {@code <data-source>}: it reads
 * the enum's ordinal, so {@code TRANSACTION_REPEATABLE_READ} becomes READ COMMITTED, which is also its default;
 * the annotation takes the JDBC constant.)
 */
final class DataSourceDefinitions {

    /** The compiled class's name. */
    static final String CLASS_NAME = "io.txlock.it.generated.TxlockDataSources";

    private DataSourceDefinitions() {
    }

    /** @return the class file of a class annotated with the JTA and the non-JTA datasource on {@code db} */
    static byte[] compile(ContainerDatabase db) {
        return compile(db, Deployments.JTA, Deployments.NON_JTA);
    }

    /**
     * @param db the database
     * @param names pairs of JNDI names: a JTA datasource's, then a non-JTA one's
     * @return the class file of a class annotated with these datasources on {@code db}
     */
    static byte[] compile(ContainerDatabase db, String... names) {
        StringBuilder definitions = new StringBuilder();
        for (int i = 0; i + 1 < names.length; i += 2) {
            definitions.append(i == 0 ? "" : ",\n").append(definition(db, names[i], true, 30)).append(",\n")
                    .append(definition(db, names[i + 1], false, 15));
        }
        String source = "package io.txlock.it.generated;\n"
                + "@jakarta.annotation.sql.DataSourceDefinitions({\n"
                + definitions + "})\n"
                + "public class TxlockDataSources {\n}\n";
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream classFile = new ByteArrayOutputStream();
        JavaFileManager files = new ForwardingJavaFileManager<>(javac.getStandardFileManager(null, null, null)) {
            @Override
            public JavaFileObject getJavaFileForOutput(Location location, String className, JavaFileObject.Kind kind,
                    FileObject sibling) {
                return new SimpleJavaFileObject(URI.create("mem:///" + className.replace('.', '/') + ".class"), kind) {
                    @Override
                    public OutputStream openOutputStream() {
                        return classFile;
                    }
                };
            }
        };
        JavaFileObject unit = new SimpleJavaFileObject(URI.create("string:///TxlockDataSources.java"), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
        StringBuilderWriter errors = new StringBuilderWriter();
        boolean ok = javac.getTask(errors, files, null, List.of("-classpath", System.getProperty("java.class.path"),
                "--release", "17", "-proc:none"), null, List.of(unit)).call();
        if (!ok) {
            throw new IllegalStateException("could not compile the datasource definitions:\n" + errors + "\n" + source);
        }
        return classFile.toByteArray();
    }

    private static String definition(ContainerDatabase db, String name, boolean transactional, int maxPool) {
        return "  @jakarta.annotation.sql.DataSourceDefinition(name = " + quote(name)
                + ", className = " + quote(db.dataSourceClass())
                + ", url = " + quote(db.url)
                + ", user = " + quote(db.user) + ", password = \"\""
                + ", transactional = " + transactional
                // MariaDB at its own default, where SELECT ... FOR UPDATE takes gap locks; WildFly's default is READ COMMITTED
                + (db.kind == ContainerDatabase.Kind.MARIADB ? ", isolationLevel = java.sql.Connection.TRANSACTION_REPEATABLE_READ" : "")
                + ", minPoolSize = 0, maxPoolSize = " + maxPool + ")";
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** Collects the compiler's messages. */
    private static final class StringBuilderWriter extends java.io.Writer {
        private final StringBuilder text = new StringBuilder();

        @Override
        public void write(char[] buffer, int offset, int length) {
            text.append(buffer, offset, length);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }

        @Override
        public String toString() {
            return text.toString();
        }
    }
}

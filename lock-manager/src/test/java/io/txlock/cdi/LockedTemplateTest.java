package io.txlock.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.LockOptions;
import io.txlock.LockScope;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** {@link Locked} name templates and attributes, compiled and rendered without a container. */
class LockedTemplateTest {

    record Customer(long id, String region) {
    }

    public static final class Order {
        public final String channel;
        private final String number;
        private final Customer customer;
        private final boolean express;

        Order(String channel, String number, Customer customer, boolean express) {
            this.channel = channel;
            this.number = number;
            this.customer = customer;
            this.express = express;
        }

        public String getNumber() {
            return number;
        }

        public Customer getCustomer() {
            return customer;
        }

        public boolean isExpress() {
            return express;
        }
    }

    @SuppressWarnings("unused")
    static final class Service {
        void ship(Order order, int attempt) {
        }

        void none() {
        }
    }

    private static Method method(String name) {
        return Arrays.stream(Service.class.getDeclaredMethods()).filter(m -> m.getName().equals(name)).findFirst().orElseThrow();
    }

    private static String render(String template, Object... args) {
        return NameTemplate.compile(template, method("ship"), "Service.ship").render(args);
    }

    private static final Order ORDER = new Order("web", "A-42", new Customer(7, "eu"), true);

    @Test
    void placeholdersReadParametersByIndexOrNameAndTheirProperties() {
        assertThat(render("order:{0.number}", ORDER, 1)).isEqualTo("order:A-42");
        assertThat(render("order:{order.number}", ORDER, 1)).isEqualTo("order:A-42");
        assertThat(render("c:{order.customer.id}/{order.customer.region}", ORDER, 1)).isEqualTo("c:7/eu");
        assertThat(render("{order.channel}-{order.express}-{attempt}", ORDER, 3)).isEqualTo("web-true-3");
        assertThat(render("{ order.number }#{1}", ORDER, 3)).isEqualTo("A-42#3");
        assertThat(render("constant", ORDER, 3)).isEqualTo("constant");
        assertThat(NameTemplate.compile("nightly-job", null, "Service").render(new Object[0])).isEqualTo("nightly-job");
    }

    @Test
    void aNullValueFailsTheCallNamingThePlaceholder() {
        assertThatThrownBy(() -> render("order:{order.customer.region}", new Order("web", "1", null, false), 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("@Locked(\"order:{order.customer.region}\") on Service.ship: {order.customer.region} is null,"
                        + " so the lock has no name");
    }

    @Test
    void badTemplatesSayWhatToFix() {
        assertThatThrownBy(() -> render(" ")).hasMessageContaining("must not be blank");
        assertThatThrownBy(() -> render("order:{0")).hasMessageContaining("unclosed '{' at index 6");
        assertThatThrownBy(() -> render("order:0}")).hasMessageContaining("unmatched '}' at index 7");
        assertThatThrownBy(() -> render("order:{{0}}")).hasMessageContaining("unclosed '{' at index 6");
        assertThatThrownBy(() -> render("order:{}")).hasMessageContaining("empty placeholder");
        assertThatThrownBy(() -> render("order:{2}")).hasMessageContaining("{2} but the method has 2 parameter(s)");
        assertThatThrownBy(() -> render("order:{ordre.number}"))
                .hasMessageContaining("no parameter named 'ordre'; the parameters are [order, attempt]");
        assertThatThrownBy(() -> render("order:{order.nummer}"))
                .hasMessageContaining(Order.class.getName() + " has no public property 'nummer'");
        assertThatThrownBy(() -> render("order:{order.class}")).hasMessageContaining("no public property 'class'");
        assertThatThrownBy(() -> render("order:{order.}")).hasMessageContaining("no public property ''");
        assertThatThrownBy(() -> NameTemplate.compile("job:{0}", null, "Service"))
                .hasMessageContaining("a class-level name cannot have placeholders");
        assertThatThrownBy(() -> NameTemplate.compile("x:{0}", method("none"), "Service.none"))
                .hasMessageContaining("{0} but the method has 0 parameter(s)");
    }

    @Locked(value = "order:{0.number}", waitTime = "250ms", lease = "PT2M", scope = LockScope.LEASE)
    @SuppressWarnings("unused")
    void annotated(Order order) {
    }

    @Locked(value = "x", waitTime = "5 seconds")
    @SuppressWarnings("unused")
    void badWait() {
    }

    @Locked(value = "x", lease = "0")
    @SuppressWarnings("unused")
    void badLease() {
    }

    @Locked(value = "x", waitTime = "forever")
    @SuppressWarnings("unused")
    void forever() {
    }

    private static LockedMethod compiled(String name) throws NoSuchMethodException {
        Method m = Arrays.stream(LockedTemplateTest.class.getDeclaredMethods()).filter(x -> x.getName().equals(name))
                .findFirst().orElseThrow();
        return LockedMethod.compile(m.getAnnotation(Locked.class), m, name);
    }

    @Test
    void attributesOverrideTheManagersDefaults() throws Exception {
        LockOptions defaults = LockOptions.defaults().withWait(Duration.ofSeconds(9)).withLease(Duration.ofSeconds(9));
        LockOptions options = compiled("annotated").options(defaults);
        assertThat(options.waitTime()).isEqualTo(Duration.ofMillis(250));
        assertThat(options.lease()).isEqualTo(Duration.ofMinutes(2));
        assertThat(options.scope()).isEqualTo(LockScope.LEASE);
        assertThat(compiled("annotated").name(new Object[] {ORDER})).isEqualTo("order:A-42");
        assertThat(compiled("forever").options(defaults).waitTime()).isEqualTo(LockOptions.FOREVER);
        assertThat(compiled("forever").options(defaults).lease()).isEqualTo(Duration.ofSeconds(9));
        assertThat(compiled("forever").options(defaults).scope()).isEqualTo(LockScope.AUTO);
    }

    @Test
    void badDurationsSayWhatToWrite() {
        assertThatThrownBy(() -> compiled("badWait")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waitTime '5 seconds' is not a duration: write e.g. '500ms'");
        assertThatThrownBy(() -> compiled("badLease")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease must be at least 1 ms");
        for (String ok : new String[] {"500ms", "5s", "2m", "1h", "1d", "PT0.5S", "0", "forever", " 3s "}) {
            assertThat(LockedMethod.duration(ok, "waitTime", "t")).as(ok).isNotNull();
        }
        assertThatThrownBy(() -> LockedMethod.duration("-PT1S", "waitTime", "t")).isInstanceOf(IllegalArgumentException.class);
    }
}

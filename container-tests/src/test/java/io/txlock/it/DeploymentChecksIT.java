package io.txlock.it;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.txlock.it.bad.BadTemplate;
import io.txlock.it.nomanager.NoManager;
import org.jboss.arquillian.container.test.api.Deployer;
import org.jboss.arquillian.container.test.api.Deployment;
import org.jboss.arquillian.container.test.api.RunAsClient;
import org.jboss.arquillian.junit5.ArquillianExtension;
import org.jboss.arquillian.test.api.ArquillianResource;
import org.jboss.shrinkwrap.api.spec.WebArchive;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Mistakes in {@code @Locked} stop the deployment with a message that says what to fix. */
@ExtendWith(ArquillianExtension.class)
@RunAsClient
class DeploymentChecksIT {

    @ArquillianResource
    Deployer deployer;

    @Deployment(name = "bad-template", managed = false)
    static WebArchive badTemplate() {
        return Deployments.war("bad-template", BadTemplate.class.getPackage(), io.txlock.it.app.Locks.class.getPackage());
    }

    @Deployment(name = "no-manager", managed = false)
    static WebArchive noManager() {
        return Deployments.war("no-manager", NoManager.class.getPackage());
    }

    @Test
    void aTemplateNamingAMissingParameterFailsTheDeployment() {
        assertThatThrownBy(() -> deployer.deploy("bad-template"))
                .hasMessageContaining("@Locked(\\\"order:{ordre.number}\\\") on " + BadTemplate.class.getName() + ".ship")
                .hasMessageContaining("no parameter named 'ordre'; the parameters are [order]");
    }

    @Test
    void aLockedMethodWithoutALockManagerBeanFailsTheDeployment() {
        assertThatThrownBy(() -> deployer.deploy("no-manager"))
                .hasMessageContaining("@Locked on " + NoManager.class.getName() + ".run needs a LockManager bean");
    }
}

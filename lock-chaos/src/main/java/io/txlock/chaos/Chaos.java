package io.txlock.chaos;

/**
 * Runs the chaos suite from the command line, with the settings of {@link ChaosSettings} as system properties
 * ({@code -Dchaos.runs=all -Dchaos.duration=PT10M}), prints the table and exits 1 if anything was violated.
 */
public final class Chaos {

    private Chaos() {
    }

    /**
     * @param args none; settings are system properties
     * @throws Exception if a server could not be started
     */
    public static void main(String[] args) throws Exception {
        ChaosSettings settings = ChaosSettings.fromSystemProperties();
        int violations = 0;
        try (ChaosSuite suite = new ChaosSuite(settings)) {
            for (ChaosSettings.Run run : settings.resolvedRuns()) {
                ChaosRun.Result result = suite.run(run);
                violations += result.verdict().violations().size();
                System.out.print(Report.details(result));
            }
            System.out.println(Report.table(suite.results()));
            System.out.println("report: " + suite.writeReport());
        }
        System.exit(violations == 0 ? 0 : 1);
    }
}

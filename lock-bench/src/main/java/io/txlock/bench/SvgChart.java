package io.txlock.bench;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.DoubleFunction;

/** Horizontal grouped bar charts as inline SVG: no script, no network, readable in any browser. */
final class SvgChart {

    /** Colours of the ways and percentiles. */
    private static final Map<String, String> COLOURS = Map.of(
            "txlock", "#2b6cb0", "floor", "#8a94a6", "seed", "#dd6b20",
            "txlock p50", "#90cdf4", "txlock p99", "#2b6cb0",
            "floor p50", "#cbd2dc", "floor p99", "#6b7585",
            "seed p50", "#fbd38d", "seed p99", "#dd6b20");

    private static final int LABEL_WIDTH = 300;
    private static final int PLOT_WIDTH = 520;
    private static final int VALUE_WIDTH = 90;
    private static final int BAR = 14;
    private static final int GAP = 3;
    private static final int GROUP_GAP = 12;

    /**
     * One bar.
     *
     * @param series its series, which picks its colour and legend entry
     * @param value its length
     */
    record Bar(String series, double value) {
    }

    /**
     * Bars drawn together under one label.
     *
     * @param label e.g. "h2 SELECT_FOR_UPDATE"
     * @param bars the bars
     */
    record Group(String label, List<Bar> bars) {
    }

    private SvgChart() {
    }

    /**
     * @param title the chart's title
     * @param groups the groups, top to bottom
     * @param log a logarithmic axis (for latencies that span orders of magnitude)
     * @param format how to write a value next to its bar
     * @return an {@code <svg>} element
     */
    static String bars(String title, List<Group> groups, boolean log, DoubleFunction<String> format) {
        double max = groups.stream().flatMap(g -> g.bars().stream()).mapToDouble(Bar::value).filter(v -> v > 0).max().orElse(1);
        double min = groups.stream().flatMap(g -> g.bars().stream()).mapToDouble(Bar::value).filter(v -> v > 0).min().orElse(1);
        double floor = Math.min(min / 2, max / 10);
        Set<String> series = new LinkedHashSet<>();
        groups.forEach(g -> g.bars().forEach(b -> series.add(b.series())));
        int legendHeight = 22;
        int height = 30 + legendHeight;
        for (Group g : groups) {
            height += g.bars().size() * (BAR + GAP) + GROUP_GAP;
        }
        int width = LABEL_WIDTH + PLOT_WIDTH + VALUE_WIDTH;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
                + " font-family=\"sans-serif\" font-size=\"12\" role=\"img\">", width, height, width, height));
        svg.append("<title>").append(escape(title)).append("</title>");
        svg.append("<text x=\"0\" y=\"16\" font-size=\"14\" font-weight=\"bold\">").append(escape(title))
                .append(log ? " (log scale)" : "").append("</text>");
        int lx = LABEL_WIDTH;
        for (String s : series) {
            svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"26\" width=\"12\" height=\"12\" fill=\"%s\"/>", lx, colour(s)));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"36\">%s</text>", lx + 16, escape(s)));
            lx += 24 + 7 * s.length();
        }
        int y = 30 + legendHeight;
        for (Group g : groups) {
            int groupHeight = g.bars().size() * (BAR + GAP);
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>", LABEL_WIDTH - 8,
                    y + groupHeight / 2 + 4, escape(g.label())));
            for (Bar b : g.bars()) {
                double fraction = b.value() <= 0 ? 0 : log
                        ? Math.log(b.value() / floor) / Math.log(max / floor)
                        : b.value() / max;
                int w = (int) Math.round(Math.max(0, Math.min(1, fraction)) * PLOT_WIDTH);
                svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>%s: %s</title></rect>",
                        LABEL_WIDTH, y, Math.max(1, w), BAR, colour(b.series()), escape(b.series()), escape(format.apply(b.value()))));
                svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>", LABEL_WIDTH + w + 4, y + BAR - 3,
                        escape(format.apply(b.value()))));
                y += BAR + GAP;
            }
            y += GROUP_GAP;
        }
        svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>", LABEL_WIDTH, 30 + legendHeight - 4,
                LABEL_WIDTH, height - GROUP_GAP));
        return svg.append("</svg>").toString();
    }

    private static String colour(String series) {
        return COLOURS.getOrDefault(series, "#4a5568");
    }

    static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}

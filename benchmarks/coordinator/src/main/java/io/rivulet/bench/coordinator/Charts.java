package io.rivulet.bench.coordinator;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.awt.Font;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The PNG plots, drawn with XChart: latency by percentile for each payload size (the HdrHistogram
 * "percentile distribution" view) of ping-pong, request-response and fan-out, p50/p99 bars, and throughput
 * bars (one-way, request-response, fan-out).
 */
final class Charts
{
    private static final int WIDTH = 1100;
    private static final int HEIGHT = 650;
    /** Last percentile plotted (the x axis ends there): 99.999 %. */
    private static final double LAST_PERCENTILE = 99.999;

    private Charts()
    {
    }

    /** @return the file names written. */
    static List<String> write(
        final Path out, final List<SystemRun> runs, final List<Integer> sizes, final List<Jmh.Score> scores)
        throws IOException
    {
        System.setProperty("java.awt.headless", "true");
        final List<String> files = new ArrayList<>();
        for (final int size : sizes)
        {
            final String name = "pingpong-latency-" + size + "B.png";
            if (percentileChart(out.resolve(name), runs, "pingpong", size,
                "Ping-pong round-trip latency by percentile, " + size + "-byte payload"))
            {
                files.add(name);
            }
        }
        if (percentileBars(out.resolve("pingpong-p50-p99.png"), runs, sizes))
        {
            files.add("pingpong-p50-p99.png");
        }
        if (throughputBars(out.resolve("oneway-throughput.png"), runs, sizes, "oneway",
            "One-way throughput (messages/s, log scale)"))
        {
            files.add("oneway-throughput.png");
        }
        if (throughputBars(out.resolve("reqresp-throughput.png"), runs, sizes, "reqresp",
            "Request-response throughput: flatMap, offerRequest and peers 64 in flight, concatMap and block() 1 " +
                "(requests/s, log scale)"))
        {
            files.add("reqresp-throughput.png");
        }
        if (throughputBars(out.resolve("fanout-throughput.png"), runs, sizes, "fanout",
            "Fan-out 1→8: messages/s delivered to all 8 subscribers (log scale)"))
        {
            files.add("fanout-throughput.png");
        }
        for (final int size : sizes)
        {
            final String name = "fanout-latency-" + size + "B.png";
            if (percentileChart(out.resolve(name), runs, "fanout", size,
                "Fan-out 1→8 latency by percentile (paced run), publication to delivery, " + size + "-byte payload"))
            {
                files.add(name);
            }
        }
        for (final int size : sizes)
        {
            final String name = "reqresp-latency-" + size + "B.png";
            if (percentileChart(out.resolve(name), runs, "reqresp", size,
                "Request-response latency by percentile, 64 in flight (flatMap), " + size + "-byte payload"))
            {
                files.add(name);
            }
        }
        return files;
    }

    /** Latency (log µs) against percentile, x = 1 / (1 - p) on a log axis, one line per system. */
    private static boolean percentileChart(
        final Path file, final List<SystemRun> runs, final String workload, final int size, final String title)
        throws IOException
    {
        final XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
            .xAxisTitle("percentile as nines: 1 = p90, 2 = p99, 3 = p99.9, 4 = p99.99, 5 = p99.999")
            .yAxisTitle("latency (µs, log scale)").build();
        style(chart.getStyler());
        // x = log10(1 / (1 - p)), the percentile's "nines": 1 is 90 %, 2 is 99 %, 3 is 99.9 %... The axis is
        // linear over the logarithm with XChart's own labels (its label callbacks loop when labels repeat).
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setYAxisDecimalPattern("#,##0.##");
        chart.getStyler().setXAxisDecimalPattern("0.#");
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setXAxisMin(0.0);
        chart.getStyler().setXAxisMax(5.0);
        int series = 0;
        for (final SystemRun run : runs)
        {
            final SystemRun.Result result = run.find(workload, null, size);
            if (result == null || result.histogram() == null)
            {
                continue;
            }
            final List<Double> xs = new ArrayList<>();
            final List<Double> ys = new ArrayList<>();
            final Histogram histogram = result.histogram();
            for (final HistogramIterationValue value : histogram.percentiles(5))
            {
                final double percentile = value.getPercentileLevelIteratedTo();
                if (percentile > LAST_PERCENTILE)
                {
                    break;
                }
                xs.add(Math.log10(1.0 / (1.0 - percentile / 100.0)));
                ys.add(Math.max(0.01, value.getValueIteratedTo() / 1000.0));
            }
            if (xs.size() < 2)
            {
                continue;
            }
            final XYSeries line = chart.addSeries(result.label(), xs, ys);
            line.setMarker(SeriesMarkers.NONE);
            series++;
        }
        if (series == 0)
        {
            return false;
        }
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        return true;
    }

    /** p50 and p99 of each system, grouped by payload size. */
    private static boolean percentileBars(final Path file, final List<SystemRun> runs, final List<Integer> sizes)
        throws IOException
    {
        final CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT)
            .title("Ping-pong round trip: p50 (solid) and p99 (light) by payload size")
            .xAxisTitle("payload").yAxisTitle("latency (µs, log scale)").build();
        style(chart.getStyler());
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setYAxisDecimalPattern("#,##0.##");
        chart.getStyler().setOverlapped(false);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        final List<String> categories = new ArrayList<>();
        sizes.forEach(size -> categories.add(size + " B"));
        int series = 0;
        final double[] min = {Double.MAX_VALUE};
        for (final double percentile : new double[]{50, 99})
        {
            int index = 0;
            for (final SystemRun run : runs)
            {
                final java.awt.Color color = PALETTE[index++ % PALETTE.length];
                final List<Double> values = new ArrayList<>();
                boolean any = false;
                for (final int size : sizes)
                {
                    final SystemRun.Result result = run.find("pingpong", null, size);
                    if (result != null)
                    {
                        values.add(Math.max(0.01, result.histogram().getValueAtPercentile(percentile) / 1000.0));
                        any = true;
                    }
                    else
                    {
                        values.add(0.01);
                    }
                }
                if (any)
                {
                    chart.addSeries(run.spec.label() + " p" + (int)percentile, categories, values)
                        .setFillColor(percentile == 50 ? color : lighter(color));
                    values.forEach(value -> min[0] = Math.min(min[0], value));
                    series++;
                }
            }
        }
        if (series == 0)
        {
            return false;
        }
        chart.getStyler().setYAxisMin(decadeBelow(min[0]));
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        return true;
    }

    private static boolean throughputBars(
        final Path file, final List<SystemRun> runs, final List<Integer> sizes, final String workload, final String title)
        throws IOException
    {
        final CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title)
            .xAxisTitle("payload").yAxisTitle(workload.equals("reqresp") ? "requests/s" : "messages/s").build();
        style(chart.getStyler());
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setYAxisDecimalPattern("#,##0.##");
        chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
        final List<String> categories = new ArrayList<>();
        sizes.forEach(size -> categories.add(size + " B"));
        final List<String> labels = new ArrayList<>();
        final List<List<Double>> seriesValues = new ArrayList<>();
        double min = Double.MAX_VALUE;
        for (final SystemRun run : runs)
        {
            for (final String api : run.apis(workload))
            {
                final List<Double> values = new ArrayList<>();
                String label = run.spec.label();
                for (final int size : sizes)
                {
                    final SystemRun.Result result = run.find(workload, api, size);
                    values.add(result == null ? null : Math.max(1.0, result.perSecond()));
                    if (result != null)
                    {
                        label = result.label();
                        min = Math.min(min, Math.max(1.0, result.perSecond()));
                    }
                }
                labels.add(label);
                seriesValues.add(values);
            }
        }
        if (labels.isEmpty())
        {
            return false;
        }
        final double axisMin = decadeBelow(min);
        for (int i = 0; i < labels.size(); i++)
        {
            final List<Double> values = new ArrayList<>();
            // A missing result (failed, or not run) stands at the axis minimum: no bar.
            seriesValues.get(i).forEach(value -> values.add(value == null ? axisMin : value));
            // Up to 20 series (Rivulet's three one-way APIs on five rows): a colour for each.
            chart.addSeries(labels.get(i), categories, values).setFillColor(WIDE_PALETTE[i % WIDE_PALETTE.length]);
        }
        chart.getStyler().setYAxisMin(axisMin);
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        return true;
    }

    /** XChart's log axis on bar charts needs an explicit minimum: the power of ten at or below the least value. */
    private static double decadeBelow(final double value)
    {
        return Math.pow(10, Math.floor(Math.log10(Math.max(value, 1e-3))));
    }

    private static final java.awt.Color[] PALETTE = {
        new java.awt.Color(0x1f77b4), new java.awt.Color(0xff7f0e), new java.awt.Color(0x2ca02c),
        new java.awt.Color(0xd62728), new java.awt.Color(0x9467bd), new java.awt.Color(0x8c564b),
        new java.awt.Color(0xe377c2), new java.awt.Color(0x7f7f7f), new java.awt.Color(0xbcbd22),
        new java.awt.Color(0x17becf)};

    /** Twenty distinguishable colours for charts with many series: ten strong ones, then their light shades. */
    private static final java.awt.Color[] WIDE_PALETTE = {
        new java.awt.Color(0x1f77b4), new java.awt.Color(0xff7f0e), new java.awt.Color(0x2ca02c),
        new java.awt.Color(0xd62728), new java.awt.Color(0x9467bd), new java.awt.Color(0x8c564b),
        new java.awt.Color(0xe377c2), new java.awt.Color(0x7f7f7f), new java.awt.Color(0xbcbd22),
        new java.awt.Color(0x17becf), new java.awt.Color(0xaec7e8), new java.awt.Color(0xffbb78),
        new java.awt.Color(0x98df8a), new java.awt.Color(0xff9896), new java.awt.Color(0xc5b0d5),
        new java.awt.Color(0xc49c94), new java.awt.Color(0xf7b6d2), new java.awt.Color(0xc7c7c7),
        new java.awt.Color(0xdbdb8d), new java.awt.Color(0x9edae5)};

    private static java.awt.Color lighter(final java.awt.Color color)
    {
        return new java.awt.Color((color.getRed() + 2 * 255) / 3, (color.getGreen() + 2 * 255) / 3,
            (color.getBlue() + 2 * 255) / 3);
    }

    private static void style(final org.knowm.xchart.style.AxesChartStyler styler)
    {
        styler.setChartBackgroundColor(java.awt.Color.WHITE);
        styler.setPlotGridLinesVisible(true);
        styler.setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 16));
        styler.setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        styler.setAxisTitleFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        styler.setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
    }
}

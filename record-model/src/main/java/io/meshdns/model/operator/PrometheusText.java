package io.meshdns.model.operator;

import java.math.BigDecimal;

/**
 * The Prometheus text exposition as Go's client writes it, which is what CoreDNS users' dashboards and
 * recording rules were written against. Micrometer's Prometheus registry prints a bucket bound with
 * Java's {@code Double.toString}: {@code le="2.5E-4"} and {@code le="100.0"}, where Go prints
 * {@code le="0.00025"} and {@code le="100"}; a query selecting one bucket by its {@code le} value
 * then finds nothing. Only {@code le} and {@code quantile} label values are rewritten.
 */
public final class PrometheusText {
    public static final String TEXT_004 = "text/plain; version=0.0.4; charset=utf-8";
    public static final String OPENMETRICS = "application/openmetrics-text; version=1.0.0; charset=utf-8";

    private PrometheusText() {
    }

    /**
     * The format to answer in, negotiated as Quarkus's own endpoint does: the classic text format when the
     * client asks for {@code text/plain} (or a browser, {@code text/html}), OpenMetrics otherwise (Prometheus
     * asks for it first).
     */
    public static String contentTypeFor(String accept) {
        return accept != null && (accept.contains("text/plain") || accept.contains("text/html")) ? TEXT_004 : OPENMETRICS;
    }

    public static String goStyle(String exposition) {
        StringBuilder out = new StringBuilder(exposition.length());
        int from = 0;
        while (true) {
            int at = nextBound(exposition, from);
            if (at < 0) {
                out.append(exposition, from, exposition.length());
                return out.toString();
            }
            int valueStart = exposition.indexOf('"', at) + 1;
            int valueEnd = exposition.indexOf('"', valueStart);
            if (valueEnd < 0) {
                out.append(exposition, from, exposition.length());
                return out.toString();
            }
            out.append(exposition, from, valueStart).append(goFloat(exposition.substring(valueStart, valueEnd)));
            from = valueEnd;
        }
    }

    private static int nextBound(String s, int from) {
        int le = s.indexOf("le=\"", from);
        int quantile = s.indexOf("quantile=\"", from);
        while (le > 0 && s.charAt(le - 1) != '{' && s.charAt(le - 1) != ',') { // a label that merely ends in "le"
            le = s.indexOf("le=\"", le + 1);
        }
        if (le < 0) return quantile;
        if (quantile < 0) return le;
        return Math.min(le, quantile);
    }

    /** A bound as Go's {@code strconv.FormatFloat(f, 'g', -1, 64)}: {@code 0.00025}, {@code 100}, {@code 1e+06}, {@code +Inf}. */
    public static String goFloat(String javaDouble) {
        if (javaDouble.equals("+Inf") || javaDouble.equals("-Inf") || javaDouble.equals("NaN")) {
            return javaDouble;
        }
        BigDecimal d;
        try {
            d = new BigDecimal(javaDouble);
        } catch (NumberFormatException e) {
            return javaDouble;
        }
        if (d.signum() == 0) {
            return "0";
        }
        d = d.stripTrailingZeros();
        int exponent = d.precision() - d.scale() - 1; // of the first significant digit
        if (exponent < -4 || exponent >= 6) { // Go: shortest form, %e below 1e-4 and from 1e6 on
            String digits = d.unscaledValue().abs().toString();
            String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            String sign = d.signum() < 0 ? "-" : "";
            return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + (Math.abs(exponent) < 10 ? "0" : "") + Math.abs(exponent);
        }
        return d.toPlainString();
    }
}

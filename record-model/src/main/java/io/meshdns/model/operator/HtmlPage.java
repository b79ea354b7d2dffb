package io.meshdns.model.operator;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * A plain HTML status page: headings, key/value tables and tables, escaped, one small inline style sheet,
 * no script. Each service's operator package fills one from the state its data path reads.
 */
public final class HtmlPage {
    private final StringBuilder body = new StringBuilder();
    private final String title;

    public HtmlPage(String title) {
        this.title = title;
    }

    public HtmlPage section(String heading) {
        body.append("<h2>").append(escape(heading)).append("</h2>\n");
        return this;
    }

    public HtmlPage paragraph(String text) {
        body.append("<p>").append(escape(text)).append("</p>\n");
        return this;
    }

    /** A two-column table, one row per {@code key, value} pair. */
    public HtmlPage facts(String id, String... keyValues) {
        body.append("<table class=\"facts\" id=\"").append(escape(id)).append("\">\n");
        for (int i = 0; i + 1 < keyValues.length; i += 2) {
            body.append("<tr><th>").append(escape(keyValues[i])).append("</th><td>").append(escape(keyValues[i + 1])).append("</td></tr>\n");
        }
        body.append("</table>\n");
        return this;
    }

    /** A table with a header row; {@code empty} is shown when there are no rows. */
    public HtmlPage table(String id, List<String> header, List<List<String>> rows, String empty) {
        if (rows.isEmpty()) {
            body.append("<p class=\"empty\" id=\"").append(escape(id)).append("\">").append(escape(empty)).append("</p>\n");
            return this;
        }
        body.append("<table id=\"").append(escape(id)).append("\">\n<tr>");
        for (String h : header) body.append("<th>").append(escape(h)).append("</th>");
        body.append("</tr>\n");
        for (List<String> row : rows) {
            body.append("<tr>");
            for (String cell : row) {
                String c = cell == null ? "" : cell;
                String cls = c.equals("stale") || c.equals("down") || c.equals("disconnected") || c.startsWith("error") ? " class=\"bad\"" : "";
                body.append("<td").append(cls).append(">").append(escape(c)).append("</td>");
            }
            body.append("</tr>\n");
        }
        body.append("</table>\n");
        return this;
    }

    public String render() {
        return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(title) + "</title>\n"
                + "<meta http-equiv=\"refresh\" content=\"10\">\n<style>"
                + "body{font-family:sans-serif;margin:1.5em;color:#222}h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.4em}"
                + "table{border-collapse:collapse;margin:.3em 0}th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left;font-size:.9em}"
                + "th{background:#f0f0f0}td.bad{background:#fdd}p.empty{color:#777}footer{margin-top:2em;color:#777;font-size:.8em}"
                + "</style></head>\n<body>\n<h1>" + escape(title) + "</h1>\n" + body
                + "<footer>rendered " + Instant.now() + "; reloads every 10 s</footer>\n</body></html>\n";
    }

    public static String escape(String s) {
        if (s == null) return "";
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /** "3.2 s ago", "4 min ago", or "never" for a non-positive epoch. */
    public static String ago(long epochMillis) {
        if (epochMillis <= 0) return "never";
        Duration d = Duration.ofMillis(Math.max(0, System.currentTimeMillis() - epochMillis));
        if (d.toMillis() < 60_000) return String.format(java.util.Locale.ROOT, "%.1f s ago", d.toMillis() / 1000.0);
        if (d.toMinutes() < 120) return d.toMinutes() + " min ago";
        return d.toHours() + " h ago";
    }
}

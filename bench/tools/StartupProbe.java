import java.io.File;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Measures the time from process start to the first correct DNS answer.
 *
 * <pre>java StartupProbe PORT NAME EXPECTED_IPV4 TIMEOUT_MS LOGFILE -- command...</pre>
 *
 * Starts the command (its output goes to LOGFILE), then sends an A query for NAME to
 * 127.0.0.1:PORT every millisecond until an answer with rcode NOERROR carries EXPECTED_IPV4.
 * Prints {@code pid=... first_answer_ms=...} and exits, leaving the server running for the caller
 * to drive and stop. The clock starts right before the fork, so the figure includes JVM start,
 * application start, zone load and socket bind, as a user sees it. Exit code 1 on timeout or when
 * the server dies (the server is then stopped).
 */
public final class StartupProbe {

    public static void main(String[] args) throws Exception {
        int sep = Arrays.asList(args).indexOf("--");
        if (args.length < 7 || sep != 5) {
            System.err.println("usage: StartupProbe PORT NAME EXPECTED_IPV4 TIMEOUT_MS LOGFILE -- command...");
            System.exit(2);
        }
        int port = Integer.parseInt(args[0]);
        String name = args[1];
        byte[] expected = InetAddress.getByName(args[2]).getAddress();
        long timeoutNanos = Long.parseLong(args[3]) * 1_000_000L;
        List<String> command = Arrays.asList(args).subList(sep + 1, args.length);

        InetSocketAddress server = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            socket.setSoTimeout(1);
            byte[] buffer = new byte[1500];
            DatagramPacket response = new DatagramPacket(buffer, buffer.length);
            int id = 0;

            long start = System.nanoTime();
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(new File(args[4]))
                    .start();
            while (true) {
                long elapsed = System.nanoTime() - start;
                if (elapsed > timeoutNanos || !process.isAlive()) {
                    System.out.printf("pid=%d first_answer_ms=- reason=%s%n", process.pid(),
                            process.isAlive() ? "timeout" : "exited with " + process.exitValue());
                    process.destroy();
                    System.exit(1);
                }
                id = (id + 1) & 0xffff;
                byte[] query = query(id, name);
                socket.send(new DatagramPacket(query, query.length, server));
                long sent = System.nanoTime();
                // Read until this query's answer or the 1 ms poll interval is over; an answer to an
                // earlier query that arrives late still counts when it is correct.
                while (System.nanoTime() - sent < 1_000_000L) {
                    try {
                        socket.receive(response);
                    } catch (SocketTimeoutException e) {
                        break;
                    } catch (IOException e) {
                        break;
                    }
                    if (isCorrect(buffer, response.getLength(), expected)) {
                        double ms = (System.nanoTime() - start) / 1e6;
                        System.out.printf("pid=%d first_answer_ms=%.1f%n", process.pid(), ms);
                        return;
                    }
                }
            }
        }
    }

    /** A standard query with RD set for NAME/A/IN. */
    static byte[] query(int id, String name) {
        byte[] out = new byte[12 + name.length() + 2 + 4];
        out[0] = (byte) (id >> 8);
        out[1] = (byte) id;
        out[2] = 0x01; // RD
        out[5] = 1; // QDCOUNT
        int p = 12;
        for (String label : name.replaceAll("\\.$", "").split("\\.")) {
            byte[] b = label.getBytes(StandardCharsets.US_ASCII);
            out[p++] = (byte) b.length;
            System.arraycopy(b, 0, out, p, b.length);
            p += b.length;
        }
        out[p++] = 0;
        out[p++] = 0;
        out[p++] = 1; // A
        out[p++] = 0;
        out[p++] = 1; // IN
        return Arrays.copyOf(out, p);
    }

    /** QR set, rcode NOERROR, at least one answer, and an A RR (type A, class IN, rdlength 4) with the address. */
    static boolean isCorrect(byte[] m, int len, byte[] expected) {
        if (len < 12 || (m[2] & 0x80) == 0 || (m[3] & 0x0f) != 0) {
            return false;
        }
        int ancount = ((m[6] & 0xff) << 8) | (m[7] & 0xff);
        if (ancount == 0) {
            return false;
        }
        // Looking for the fixed tail of an A record: TYPE=1 CLASS=1 TTL(4) RDLENGTH=4 RDATA.
        for (int i = 12; i + 14 <= len; i++) {
            if (m[i] == 0 && m[i + 1] == 1 && m[i + 2] == 0 && m[i + 3] == 1
                    && m[i + 8] == 0 && m[i + 9] == 4
                    && m[i + 10] == expected[0] && m[i + 11] == expected[1]
                    && m[i + 12] == expected[2] && m[i + 13] == expected[3]) {
                return true;
            }
        }
        return false;
    }
}

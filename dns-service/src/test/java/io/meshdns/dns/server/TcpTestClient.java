package io.meshdns.dns.server;

import io.meshdns.dns.DnsClient;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Type;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Raw TCP DNS over loopback for the connection-limit tests: frames, answered connections, metric samples. */
final class TcpTestClient {
    private TcpTestClient() {
    }

    /** A connection from {@code source} (a loopback address) whose one query was answered NOERROR, left open. */
    static Socket answeredFrom(String source, int port) throws IOException {
        Socket s = new Socket();
        s.bind(new InetSocketAddress(source, 0));
        s.connect(new InetSocketAddress("127.0.0.1", port));
        s.setSoTimeout(5000);
        s.getOutputStream().write(frame(DnsClient.query("small.tcp.test.", Type.A, DClass.IN).toWire()));
        DataInputStream in = new DataInputStream(s.getInputStream());
        byte[] answer = new byte[in.readUnsignedShort()];
        in.readFully(answer);
        assertEquals(Rcode.NOERROR, new Message(answer).getRcode());
        return s;
    }

    static void assertClosedByServer(Socket s) throws IOException {
        s.setSoTimeout(5000);
        try {
            assertEquals(-1, s.getInputStream().read(), "an evicted connection reads end of stream");
        } catch (SocketException e) {
            // reset: closed as well
        }
    }

    /** RFC 7766's two-byte length prefix. */
    static byte[] frame(byte[] message) {
        byte[] out = new byte[message.length + 2];
        out[0] = (byte) (message.length >>> 8);
        out[1] = (byte) message.length;
        System.arraycopy(message, 0, out, 2, message.length);
        return out;
    }

    /** The sum of the Prometheus samples whose line starts with {@code prefix} and contains every label. */
    static double metric(String prefix, String... labels) {
        String body = given().get("/q/metrics").then().statusCode(200).extract().asString();
        double sum = 0;
        for (String line : body.split("\n")) {
            if (!line.startsWith(prefix)) continue;
            boolean all = true;
            for (String l : labels) all &= line.contains(l);
            if (all) sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        }
        return sum;
    }
}

package io.meshdns.it.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** HTTP/1.1 over a plain socket, for tests that hold the port's descriptors down and must not pool connections. */
public final class RawHttp {
    private RawHttp() {
    }

    /** The status code of one GET on loopback, or -1 when no status line came back. */
    public static int status(int port, String path) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 2_000);
            s.setSoTimeout(3_000);
            s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            InputStream in = s.getInputStream();
            String head = new String(in.readNBytes(12), StandardCharsets.US_ASCII);
            return head.length() < 12 ? -1 : Integer.parseInt(head.substring(9, 12));
        }
    }
}

package io.meshdns.dns.forward;

import java.util.ArrayList;
import java.util.List;

/** The {@code nameserver} lines of a resolv.conf(5) text, in order. Pure. */
final class ResolvConf {
    private ResolvConf() {
    }

    static List<String> nameservers(String text) {
        List<String> servers = new ArrayList<>();
        for (String line : text.split("\\R")) {
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.charAt(0) == '#' || trimmed.charAt(0) == ';') {
                continue;
            }
            String[] fields = trimmed.split("\\s+");
            if (fields.length >= 2 && fields[0].equals("nameserver")) {
                String server = fields[1];
                int zone = server.indexOf('%'); // fe80::1%eth0: the scope is not useful to us
                servers.add(zone < 0 ? server : server.substring(0, zone));
            }
        }
        return servers;
    }
}

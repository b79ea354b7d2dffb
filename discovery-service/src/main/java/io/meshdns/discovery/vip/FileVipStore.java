package io.meshdns.discovery.vip;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;

/** The edge / manifest-only store: a text file, replaced atomically (write a temp file, then rename). */
public final class FileVipStore implements VipStore {
    private final Path file;

    public FileVipStore(Path file) {
        this.file = file;
    }

    @Override
    public Map<String, List<String>> load() throws IOException {
        if (!Files.exists(file)) return Map.of();
        return VipStore.decode(Files.readString(file, StandardCharsets.UTF_8));
    }

    @Override
    public void save(Map<String, List<String>> allocations) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, file.getFileName().toString(), ".tmp");
        Files.writeString(tmp, "# meshdns ServiceEntry VIPs: host ipv4 ipv6 (written by discovery-service)\n"
                + VipStore.encode(allocations), StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    @Override
    public String describe() {
        return "file " + file;
    }
}

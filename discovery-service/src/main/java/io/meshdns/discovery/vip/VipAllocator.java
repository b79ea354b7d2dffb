package io.meshdns.discovery.vip;

import io.meshdns.model.CatalogEntry;

import java.util.List;
import java.util.Map;

/**
 * The allocation seam: gives each ServiceEntry host without {@code addresses} stable VIPs,
 * identical on every node. Discovery fills {@link CatalogEntry.ServiceEntry#allocatedVips()} with
 * the result before the entry enters the catalog.
 */
public interface VipAllocator {

    /** host -> VIPs for the hosts of {@code entry} that need one; empty when none is allocated. */
    Map<String, List<String>> vipsFor(CatalogEntry.ServiceEntry entry);

    /** An allocator that allocates nothing (when no allocator bean is present). */
    VipAllocator NONE = entry -> Map.of();
}

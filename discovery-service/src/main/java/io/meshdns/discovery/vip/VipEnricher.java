package io.meshdns.discovery.vip;

import io.meshdns.model.CatalogEntry;

import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/** Applies a {@link VipAllocator} to ServiceEntries on their way into the catalog. */
public final class VipEnricher implements UnaryOperator<CatalogEntry> {
    private final VipAllocator allocator;

    public VipEnricher(VipAllocator allocator) {
        this.allocator = allocator;
    }

    @Override
    public CatalogEntry apply(CatalogEntry e) {
        if (!(e instanceof CatalogEntry.ServiceEntry se)) return e;
        Map<String, List<String>> vips = allocator.vipsFor(se);
        if (vips.equals(se.allocatedVips())) return e;
        return se.withAllocatedVips(vips);
    }
}

package io.meshdns.exposure.plan;

import java.util.Locale;

/** What the plan may do to records we own: ExternalDNS's --policy. There is deliberately no default. */
public enum Policy {
    /** create, update and delete. */
    SYNC("sync"),
    /** create and update, never delete. */
    UPSERT_ONLY("upsert-only"),
    /** create only. */
    CREATE_ONLY("create-only");

    private final String configName;

    Policy(String configName) {
        this.configName = configName;
    }

    public String configName() {
        return configName;
    }

    public boolean allowsUpdate() {
        return this != CREATE_ONLY;
    }

    public boolean allowsDelete() {
        return this == SYNC;
    }

    public static Policy parse(String key, String value) {
        for (Policy p : values()) {
            if (p.configName.equals(value.trim().toLowerCase(Locale.ROOT))) return p;
        }
        throw new IllegalArgumentException(key + ": '" + value + "' is not one of sync, upsert-only, create-only");
    }
}

package io.meshdns.exposure.plan;

import io.meshdns.exposure.endpoint.Endpoint;
import java.util.List;

/**
 * The outcome of a plan, as ExternalDNS's plan.Changes: endpoints to create, pairs to update
 * (updateOld.get(i) becomes updateNew.get(i)) and endpoints to delete. Endpoints are "ours" views:
 * for a multi-owner RRset they carry only this owner's targets.
 */
public record Changes(List<Endpoint> create, List<Endpoint> updateOld, List<Endpoint> updateNew,
                      List<Endpoint> delete) {

    public static final Changes NONE = new Changes(List.of(), List.of(), List.of(), List.of());

    public Changes {
        create = List.copyOf(create);
        updateOld = List.copyOf(updateOld);
        updateNew = List.copyOf(updateNew);
        delete = List.copyOf(delete);
        if (updateOld.size() != updateNew.size()) {
            throw new IllegalArgumentException("updateOld and updateNew must pair up");
        }
    }

    public boolean isEmpty() {
        return create.isEmpty() && updateNew.isEmpty() && delete.isEmpty();
    }

    public int size() {
        return create.size() + updateNew.size() + delete.size();
    }

    /** Human-readable plan, one line per change: what dry-run prints. */
    public String describe() {
        if (isEmpty()) return "no changes";
        var sb = new StringBuilder();
        create.forEach(e -> sb.append("\n  CREATE ").append(e));
        for (int i = 0; i < updateNew.size(); i++) {
            sb.append("\n  UPDATE ").append(updateOld.get(i)).append("\n      -> ").append(updateNew.get(i));
        }
        delete.forEach(e -> sb.append("\n  DELETE ").append(e));
        return sb.toString();
    }
}

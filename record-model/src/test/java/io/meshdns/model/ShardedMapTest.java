package io.meshdns.model;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShardedMapTest {

    /** Random edits against a HashMap model; every published version must stay exactly as it was built. */
    @Test
    void behavesLikeAHashMapAndOldVersionsNeverChange() {
        Random random = new Random(42);
        Map<Integer, String> model = new HashMap<>();
        ShardedMap<Integer, String> map = ShardedMap.empty();
        List<ShardedMap<Integer, String>> versions = new ArrayList<>();
        List<Map<Integer, String>> models = new ArrayList<>();
        for (int round = 0; round < 60; round++) {
            ShardedMap.Editor<Integer, String> editor = map.edit();
            int edits = round < 20 ? 2_000 : 50; // grow through several reshards, then small deltas
            if (round == 40) { // then shrink a lot: deletions must keep every probe run intact
                for (Integer key : new ArrayList<>(model.keySet())) {
                    if (random.nextInt(10) < 8) assertEquals(model.remove(key), editor.remove(key));
                }
            }
            for (int i = 0; i < edits; i++) {
                int key = random.nextInt(40_000);
                if (random.nextInt(4) == 0) {
                    assertEquals(model.remove(key), editor.remove(key));
                } else {
                    String value = "v" + round + "-" + i;
                    assertEquals(model.put(key, value), editor.put(key, value));
                }
            }
            for (int probe = 0; probe < 200; probe++) {
                int key = random.nextInt(40_000);
                assertEquals(model.get(key), editor.get(key), "editor read of " + key);
            }
            map = editor.build();
            versions.add(map);
            models.add(new HashMap<>(model));
        }
        for (int v = 0; v < versions.size(); v++) {
            assertEquals(models.get(v), versions.get(v), "version " + v);
            assertEquals(models.get(v).size(), versions.get(v).size());
            assertEquals(models.get(v).hashCode(), versions.get(v).hashCode());
        }
        assertTrue(map.shardCount() > 64, "a map of " + map.size() + " entries is sharded: " + map.shardCount());
    }

    @Test
    void aSmallDeltaSharesEveryUntouchedShard() throws Exception {
        Map<Integer, Integer> source = new HashMap<>();
        for (int i = 0; i < 100_000; i++) source.put(i, i);
        ShardedMap<Integer, Integer> before = ShardedMap.copyOf(source);
        ShardedMap<Integer, Integer> after = before.with(7, -7);
        var field = ShardedMap.class.getDeclaredField("shards");
        field.setAccessible(true);
        Object[][] a = (Object[][]) field.get(before);
        Object[][] b = (Object[][]) field.get(after);
        int shared = 0;
        for (int i = 0; i < a.length; i++) if (a[i] == b[i]) shared++;
        assertEquals(a.length - 1, shared, "exactly one shard was copied");
        assertEquals(7, before.get(7));
        assertEquals(-7, after.get(7));
    }

    @Test
    void emptyNullsAndIdentity() {
        ShardedMap<String, String> empty = ShardedMap.empty();
        assertTrue(empty.isEmpty());
        assertNull(empty.get("x"));
        assertFalse(empty.containsKey("x"));
        assertSame(empty, empty.without("x"));
        ShardedMap<String, String> one = empty.with("a", "b");
        assertSame(one, ShardedMap.copyOf(one));
        assertTrue(one.without("a").isEmpty());
        assertThrows(NullPointerException.class, () -> one.edit().put("k", null));
        assertThrows(UnsupportedOperationException.class, () -> one.put("c", "d"));
        assertEquals(Map.of("a", "b"), one);
    }

    /** Keys whose hashes collide in one shard and one slot: probing and deletion must still find every key. */
    @Test
    void collidingKeysSurviveDeletesInAnyOrder() {
        record Collider(int id) {
            @Override
            public int hashCode() {
                return 7; // every key: same shard, same home slot
            }
        }
        Random random = new Random(3);
        for (int round = 0; round < 50; round++) {
            Map<Collider, Integer> model = new HashMap<>();
            ShardedMap.Editor<Collider, Integer> editor = ShardedMap.<Collider, Integer>builder(0);
            for (int i = 0; i < 40; i++) {
                Collider k = new Collider(random.nextInt(60));
                if (random.nextInt(3) == 0) assertEquals(model.remove(k), editor.remove(k));
                else assertEquals(model.put(k, i), editor.put(k, i));
            }
            assertEquals(model, editor.build());
        }
    }
}

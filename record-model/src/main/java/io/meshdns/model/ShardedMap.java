package io.meshdns.model;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * An immutable map whose updates copy only the shards they touch. The catalog and the DNS snapshot are
 * replaced on every change while queries keep reading the old version; with one big HashMap each change
 * would copy every entry (tens of milliseconds at 100k names). Here a change of one key copies one shard
 * of about {@value #TARGET_SHARD_SIZE} entries and the array of shard references, so the cost of a delta
 * follows the size of the delta, not of the map.
 *
 * <p>Each shard is one open-addressing table ({@code [key0, value0, key1, value1, ...]}, linear probing,
 * at most half full): a read is a hash, two array loads and the key comparison, with no per-entry node
 * objects to chase (a shard of HashMaps measured 4x slower than one HashMap at 1M keys, from the extra
 * cache misses). The shard is chosen from the top bits of a multiplicative hash; the slot from the low
 * bits of the plain hash, so the two do not correlate. No null keys or values.
 */
public final class ShardedMap<K, V> extends AbstractMap<K, V> {
    /** Entries per shard aimed for when the shard count is chosen. */
    static final int TARGET_SHARD_SIZE = 64;
    private static final int MAX_BITS = 14;
    private static final Object[] EMPTY_TABLE = new Object[0];
    @SuppressWarnings("rawtypes")
    private static final ShardedMap EMPTY = new ShardedMap<>(new Object[][]{EMPTY_TABLE}, new int[1], 0, 0);

    private final Object[][] shards; // never modified once published
    private final int[] counts;      // entries per shard
    private final int bits;
    private final int size;
    private Set<Entry<K, V>> entrySet;

    private ShardedMap(Object[][] shards, int[] counts, int bits, int size) {
        this.shards = shards;
        this.counts = counts;
        this.bits = bits;
        this.size = size;
    }

    @SuppressWarnings("unchecked")
    public static <K, V> ShardedMap<K, V> empty() {
        return (ShardedMap<K, V>) EMPTY;
    }

    public static <K, V> ShardedMap<K, V> copyOf(Map<? extends K, ? extends V> source) {
        if (source instanceof ShardedMap<?, ?>) {
            @SuppressWarnings("unchecked")
            ShardedMap<K, V> same = (ShardedMap<K, V>) source;
            return same;
        }
        Editor<K, V> editor = builder(source.size());
        source.forEach(editor::put);
        return editor.build();
    }

    /**
     * An editor for a new map of about {@code expectedSize} entries: the shards are sized once, not grown
     * (and rehashed) step by step while a big map is built.
     */
    public static <K, V> Editor<K, V> builder(int expectedSize) {
        return ShardedMap.<K, V>empty().edit(expectedSize);
    }

    /** An editor starting from this map; this map never changes. */
    public Editor<K, V> edit() {
        return edit(size);
    }

    private Editor<K, V> edit(int expectedSize) {
        Editor<K, V> e = new Editor<>(shards.clone(), counts.clone(), bits, size);
        int wanted = bitsFor(Math.max(expectedSize, size));
        if (wanted > bits) e.reshard(wanted);
        return e;
    }

    /** This map with {@code key} mapped to {@code value}. */
    public ShardedMap<K, V> with(K key, V value) {
        Editor<K, V> e = edit();
        e.put(key, value);
        return e.build();
    }

    /** This map without {@code key}. */
    public ShardedMap<K, V> without(K key) {
        if (!containsKey(key)) return this;
        Editor<K, V> e = edit();
        e.remove(key);
        return e.build();
    }

    @Override
    @SuppressWarnings("unchecked")
    public V get(Object key) {
        return (V) lookup(shards, bits, key);
    }

    @Override
    public boolean containsKey(Object key) {
        int h = key.hashCode();
        return find(shards[shardOf(h, bits)], key, h) >= 0;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public Set<Entry<K, V>> entrySet() {
        Set<Entry<K, V>> es = entrySet;
        if (es == null) {
            es = new AbstractSet<>() {
                @Override
                public Iterator<Entry<K, V>> iterator() {
                    return new ShardIterator();
                }

                @Override
                public int size() {
                    return size;
                }
            };
            entrySet = es;
        }
        return es;
    }

    /** Number of shards (for tests and metrics). */
    int shardCount() {
        return shards.length;
    }

    private static int bitsFor(int size) {
        int shardsWanted = Math.max(1, size / TARGET_SHARD_SIZE);
        int b = 32 - Integer.numberOfLeadingZeros(shardsWanted - 1); // ceil(log2)
        return Math.min(b, MAX_BITS);
    }

    static int shardOf(int hash, int bits) {
        return bits == 0 ? 0 : (hash * 0x9E3779B9) >>> (32 - bits);
    }

    private static int firstSlot(int hash, int slots) {
        return ((hash ^ (hash >>> 16)) & (slots - 1)) << 1;
    }

    /** The value of {@code key} in {@code shards}, or null: the read path of the map and of its editor. */
    private static Object lookup(Object[][] shards, int bits, Object key) {
        int h = key.hashCode();
        Object[] t = shards[shardOf(h, bits)];
        int slot = find(t, key, h);
        return slot < 0 ? null : t[slot + 1];
    }

    /** The index of {@code key} in table {@code t}, or -1. */
    private static int find(Object[] t, Object key, int hash) {
        int length = t.length;
        if (length == 0) return -1;
        int i = firstSlot(hash, length >> 1);
        while (true) {
            Object k = t[i];
            if (k == null) return -1;
            if (k == key || k.equals(key)) return i;
            i = (i + 2) & (length - 1);
        }
    }

    private final class ShardIterator implements Iterator<Entry<K, V>> {
        private int shard;
        private int slot = -2;

        @Override
        public boolean hasNext() {
            while (shard < shards.length) {
                Object[] t = shards[shard];
                for (int i = slot + 2; i < t.length; i += 2) {
                    if (t[i] != null) {
                        slot = i - 2;
                        return true;
                    }
                }
                shard++;
                slot = -2;
            }
            return false;
        }

        @Override
        @SuppressWarnings("unchecked")
        public Entry<K, V> next() {
            if (!hasNext()) throw new NoSuchElementException();
            Object[] t = shards[shard];
            slot += 2;
            return new SimpleImmutableEntry<>((K) t[slot], (V) t[slot + 1]);
        }
    }

    /**
     * Collects changes for one new map. Not thread-safe; {@link #build()} ends it. Each shard is copied
     * the first time it is changed and then edited in place.
     */
    public static final class Editor<K, V> {
        private Object[][] shards;
        private int[] counts;
        private int bits;
        private int size;
        private boolean[] owned;

        private Editor(Object[][] shards, int[] counts, int bits, int size) {
            this.shards = shards;
            this.counts = counts;
            this.bits = bits;
            this.size = size;
            this.owned = new boolean[shards.length];
        }

        @SuppressWarnings("unchecked")
        public V get(Object key) {
            return (V) lookup(shards, bits, key);
        }

        @SuppressWarnings("unchecked")
        public V put(K key, V value) {
            if (key == null || value == null) throw new NullPointerException("ShardedMap holds no nulls");
            if (size + 1 > (TARGET_SHARD_SIZE * 4) << bits && bits < MAX_BITS) reshard(bitsFor(size * 2));
            int h = key.hashCode();
            int s = shardOf(h, bits);
            int slot = find(shards[s], key, h);
            if (slot >= 0) {
                Object[] t = writable(s, 0);
                V old = (V) t[slot + 1];
                t[slot + 1] = value;
                return old;
            }
            Object[] t = writable(s, 1);
            insert(t, key, value, h);
            counts[s]++;
            size++;
            return null;
        }

        @SuppressWarnings("unchecked")
        public V remove(Object key) {
            int h = key.hashCode();
            int s = shardOf(h, bits);
            if (find(shards[s], key, h) < 0) return null;
            Object[] t = writable(s, 0);
            int slot = find(t, key, h);
            V old = (V) t[slot + 1];
            deleteAt(t, slot);
            counts[s]--;
            size--;
            return old;
        }

        public int size() {
            return size;
        }

        public ShardedMap<K, V> build() {
            ShardedMap<K, V> map = size == 0 ? empty() : new ShardedMap<>(shards, counts, bits, size);
            shards = null; // the map now owns the shards: further edits would change it
            return map;
        }

        /** Shard {@code s}, copied if this editor does not own it yet, with room for {@code extra} more entries. */
        private Object[] writable(int s, int extra) {
            Object[] t = shards[s];
            int needed = counts[s] + extra;
            int slots = t.length >> 1;
            if (needed * 2 > slots || !owned[s]) {
                int newSlots = Math.max(slots, 8);
                if (t.length == 0 && bits > 0) newSlots = TARGET_SHARD_SIZE * 2;
                while (needed * 2 > newSlots) newSlots <<= 1;
                if (newSlots == slots && t.length > 0) {
                    t = t.clone();
                } else {
                    Object[] next = new Object[newSlots << 1];
                    for (int i = 0; i < t.length; i += 2) {
                        if (t[i] != null) insert(next, t[i], t[i + 1], t[i].hashCode());
                    }
                    t = next;
                }
                shards[s] = t;
                owned[s] = true;
            }
            return t;
        }

        private static void insert(Object[] t, Object key, Object value, int hash) {
            int mask = t.length - 1;
            int i = firstSlot(hash, t.length >> 1);
            while (t[i] != null) i = (i + 2) & mask;
            t[i] = key;
            t[i + 1] = value;
        }

        /** Linear-probing delete: shifts later entries of the run back so that no lookup stops early. */
        private static void deleteAt(Object[] t, int slot) {
            int mask = t.length - 1;
            int hole = slot;
            int i = slot;
            while (true) {
                i = (i + 2) & mask;
                Object k = t[i];
                if (k == null) break;
                int home = firstSlot(k.hashCode(), t.length >> 1);
                // Move k into the hole unless its home lies cyclically in (hole, i].
                boolean stays = hole <= i ? (home > hole && home <= i) : (home > hole || home <= i);
                if (!stays) {
                    t[hole] = k;
                    t[hole + 1] = t[i + 1];
                    hole = i;
                }
            }
            t[hole] = null;
            t[hole + 1] = null;
        }

        private void reshard(int newBits) {
            Object[][] next = new Object[1 << newBits][];
            int[] nextCounts = new int[next.length];
            for (Object[] t : shards) {
                for (int i = 0; i < t.length; i += 2) {
                    if (t[i] != null) nextCounts[shardOf(t[i].hashCode(), newBits)]++;
                }
            }
            for (int s = 0; s < next.length; s++) {
                int slots = 8;
                while (nextCounts[s] * 2 > slots) slots <<= 1;
                next[s] = nextCounts[s] == 0 ? EMPTY_TABLE : new Object[slots << 1];
            }
            for (Object[] t : shards) {
                for (int i = 0; i < t.length; i += 2) {
                    if (t[i] != null) insert(next[shardOf(t[i].hashCode(), newBits)], t[i], t[i + 1], t[i].hashCode());
                }
            }
            shards = next;
            counts = nextCounts;
            bits = newBits;
            owned = new boolean[next.length];
            java.util.Arrays.fill(owned, true);
            for (int s = 0; s < next.length; s++) if (next[s] == EMPTY_TABLE) owned[s] = false;
        }
    }
}

package io.meshdns.model;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

/**
 * An immutable map whose updates copy only the shards they touch. The catalog and the DNS snapshot are
 * replaced on every change while queries keep reading the old version; with one big HashMap each change
 * would copy every entry (tens of milliseconds at 100k names). Here a change of one key copies one shard
 * of about {@value #TARGET_SHARD_SIZE} entries and an array of shard references, so the cost of a delta
 * follows the size of the delta, not of the map.
 *
 * <p>Reads are a hash, an array index and a {@link HashMap#get}: the same cost as a plain HashMap.
 * The shard is chosen from the top bits of a multiplicative hash, so it does not correlate with the
 * low bits each shard's HashMap uses for its buckets.
 */
public final class ShardedMap<K, V> extends AbstractMap<K, V> {
    /** Entries per shard aimed for when the shard count is chosen. */
    static final int TARGET_SHARD_SIZE = 64;
    private static final int MAX_BITS = 14;
    @SuppressWarnings("rawtypes")
    private static final ShardedMap EMPTY = new ShardedMap<>(new Map[]{Map.of()}, 0, 0);

    private final Map<K, V>[] shards; // never modified once published
    private final int bits;
    private final int size;
    private Set<Entry<K, V>> entrySet;

    private ShardedMap(Map<K, V>[] shards, int bits, int size) {
        this.shards = shards;
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
        Editor<K, V> editor = ShardedMap.<K, V>empty().edit(source.size());
        source.forEach(editor::put);
        return editor.build();
    }

    /** An editor starting from this map; this map never changes. */
    public Editor<K, V> edit() {
        return edit(size);
    }

    private Editor<K, V> edit(int expectedSize) {
        int wanted = bitsFor(Math.max(expectedSize, size));
        return wanted > bits ? new Editor<>(reshard(wanted), wanted, size) : new Editor<>(shards.clone(), bits, size);
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
    public V get(Object key) {
        return shards[index(key, bits)].get(key);
    }

    @Override
    public boolean containsKey(Object key) {
        return shards[index(key, bits)].containsKey(key);
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

    static int index(Object key, int bits) {
        if (bits == 0) return 0;
        int h = key.hashCode() * 0x9E3779B9;
        return h >>> (32 - bits);
    }

    private Map<K, V>[] reshard(int newBits) {
        @SuppressWarnings("unchecked")
        Map<K, V>[] next = new Map[1 << newBits];
        Arrays.fill(next, Map.of());
        for (Map<K, V> shard : shards) {
            for (Entry<K, V> e : shard.entrySet()) {
                int i = index(e.getKey(), newBits);
                if (next[i].isEmpty()) next[i] = new HashMap<>();
                next[i].put(e.getKey(), e.getValue());
            }
        }
        return next;
    }

    private final class ShardIterator implements Iterator<Entry<K, V>> {
        private int shard = -1;
        private Iterator<Entry<K, V>> current = java.util.Collections.emptyIterator();

        @Override
        public boolean hasNext() {
            while (!current.hasNext()) {
                if (++shard >= shards.length) return false;
                current = shards[shard].entrySet().iterator();
            }
            return true;
        }

        @Override
        public Entry<K, V> next() {
            if (!hasNext()) throw new NoSuchElementException();
            Entry<K, V> e = current.next();
            return new SimpleImmutableEntry<>(e.getKey(), e.getValue());
        }
    }

    /**
     * Collects changes for one new map. Not thread-safe; {@link #build()} ends it. Each shard is copied
     * the first time it is changed and then edited in place.
     */
    public static final class Editor<K, V> {
        private Map<K, V>[] shards;
        private int bits;
        private int size;
        private boolean[] owned;

        private Editor(Map<K, V>[] shards, int bits, int size) {
            this.shards = shards;
            this.bits = bits;
            this.size = size;
            this.owned = new boolean[shards.length];
        }

        public V get(Object key) {
            return shards[index(key, bits)].get(key);
        }

        public V put(K key, V value) {
            if (key == null || value == null) throw new NullPointerException("ShardedMap holds no nulls");
            if (size + 1 > (TARGET_SHARD_SIZE * 4) << bits && bits < MAX_BITS) grow();
            Map<K, V> shard = writable(index(key, bits));
            V old = shard.put(key, value);
            if (old == null) size++;
            return old;
        }

        public V remove(Object key) {
            int i = index(key, bits);
            if (!shards[i].containsKey(key)) return null;
            V old = writable(i).remove(key);
            size--;
            return old;
        }

        public int size() {
            return size;
        }

        public ShardedMap<K, V> build() {
            ShardedMap<K, V> map = size == 0 ? empty() : new ShardedMap<>(shards, bits, size);
            shards = null; // the map now owns the shards: further edits would change it
            return map;
        }

        private Map<K, V> writable(int i) {
            if (!owned[i]) {
                shards[i] = new HashMap<>(shards[i]);
                owned[i] = true;
            }
            return shards[i];
        }

        private void grow() {
            int newBits = Math.min(MAX_BITS, bitsFor(size * 2));
            @SuppressWarnings("unchecked")
            Map<K, V>[] next = new Map[1 << newBits];
            Arrays.fill(next, Map.of());
            boolean[] nextOwned = new boolean[next.length];
            for (Map<K, V> shard : shards) {
                for (Entry<K, V> e : shard.entrySet()) {
                    int i = index(e.getKey(), newBits);
                    if (!nextOwned[i]) {
                        next[i] = new HashMap<>();
                        nextOwned[i] = true;
                    }
                    next[i].put(e.getKey(), e.getValue());
                }
            }
            shards = next;
            owned = nextOwned;
            bits = newBits;
        }
    }
}

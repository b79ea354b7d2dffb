package io.meshdns.dns.fastpath;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The memo folds the question's case eight bytes at a time: exactly ASCII 'A'..'Z' fold, wherever they sit in
 * the name (in a whole word or in the tail of one to seven bytes), and no other byte does, not even those that
 * differ from another by the case bit ('@' and '`', '[' and '{', 0xC1 and 0xE1).
 */
class AnswerMemoCaseFoldTest {
    /** Every pair of byte values in every pair of neighbouring positions: no carry leaks into the next byte. */
    @Test
    void lower8FoldsExactlyTheAsciiCapitalsOfEveryByte() {
        for (int pos = 0; pos < 7; pos++) {
            for (int a = 0; a < 256; a++) {
                for (int b = 0; b < 256; b++) {
                    long v = 0x5A41_7F80_FF40_5B60L; // the other bytes: 'Z', 'A', DEL, 0x80, 0xFF, '@', '[', '`'
                    v &= ~(0xFFFFL << (8 * pos));
                    v |= ((long) a | (long) b << 8) << (8 * pos);
                    long folded = AnswerMemo.lower8(v);
                    for (int i = 0; i < 8; i++) {
                        int in = (int) (v >>> (8 * i)) & 0xFF;
                        int out = (int) (folded >>> (8 * i)) & 0xFF;
                        assertEquals(in >= 'A' && in <= 'Z' ? in + 32 : in, out, "byte " + i + " of " + Long.toHexString(v));
                    }
                }
            }
        }
    }

    @Test
    void anyCaseOfTheNameHitsAndIsEchoedAtEveryNameLength() {
        for (int length = 1; length <= 40; length++) {
            Object snapshot = new Object();
            AnswerMemo memo = new AnswerMemo(64);
            byte[] lower = query(label("abcdefghijklmnopqrstuvwxyz0123456789-_ab".substring(0, length)), 7);
            remember(memo, snapshot, lower);
            byte[] mixed = query(label(mixedCase("abcdefghijklmnopqrstuvwxyz0123456789-_ab".substring(0, length))), 4242);
            AnswerMemo.Hit hit = memo.lookup(snapshot, mixed);
            assertNotNull(hit, "length " + length);
            assertArrayEquals(java.util.Arrays.copyOfRange(mixed, 12, hit.questionEnd()),
                    java.util.Arrays.copyOfRange(hit.response(), 12, hit.questionEnd()), "the query's case echoed, length " + length);
            assertEquals(mixed[0], hit.response()[0]);
            assertEquals(mixed[1], hit.response()[1]);
        }
    }

    /** Each pair differs in the case bit (0x20) only, at every offset of the name: none of them is a letter pair. */
    @Test
    void bytesThatDifferByTheCaseBitButAreNotLettersDoNotMatch() {
        int[][] twins = {{'@', '`'}, {'[', '{'}, {'\\', '|'}, {']', '}'}, {'^', '~'}, {'_', 0x7F}, {0xC1, 0xE1}, {0xDA, 0xFA},
                {'0', 0x10}, {'-', 0x0D}};
        for (int[] twin : twins) {
            for (int at = 0; at < 20; at++) {
                byte[] name = "abcdefghijklmnopqrst".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
                name[at] = (byte) twin[0];
                Object snapshot = new Object();
                AnswerMemo memo = new AnswerMemo(64);
                remember(memo, snapshot, query(label(name), 1));
                name[at] = (byte) twin[1];
                assertNull(memo.lookup(snapshot, query(label(name), 1)),
                        Integer.toHexString(twin[0]) + " matched " + Integer.toHexString(twin[1]) + " at " + at);
                name[at] = (byte) twin[0];
                assertNotNull(memo.lookup(snapshot, query(label(name), 1)), "the same bytes hit");
            }
        }
    }

    private static void remember(AnswerMemo memo, Object snapshot, byte[] query) {
        byte[] response = query.clone();
        response[2] |= (byte) 0x84; // QR, AA
        memo.remember(snapshot, query, response, "test.", 0, 1);
    }

    private static String mixedCase(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            b.append(i % 3 == 0 ? Character.toUpperCase(s.charAt(i)) : s.charAt(i));
        }
        return b.toString();
    }

    private static byte[] label(String s) {
        return label(s.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    /** One label of these bytes under "test.", in wire form. */
    private static byte[] label(byte[] bytes) {
        ByteArrayOutputStream name = new ByteArrayOutputStream();
        name.write(bytes.length);
        name.writeBytes(bytes);
        name.write(4);
        name.writeBytes("test".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        name.write(0);
        return name.toByteArray();
    }

    /** A plain query (RD, one question of type A class IN, no OPT) for the wire name {@code name}. */
    private static byte[] query(byte[] name, int id) {
        ByteArrayOutputStream q = new ByteArrayOutputStream();
        q.writeBytes(new byte[]{(byte) (id >> 8), (byte) id, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0});
        q.writeBytes(name);
        q.writeBytes(new byte[]{0, 1, 0, 1});
        return q.toByteArray();
    }
}

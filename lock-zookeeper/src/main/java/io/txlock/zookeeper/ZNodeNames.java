package io.txlock.zookeeper;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Turns a lock name (any Unicode, including {@code /}, spaces and quotes) into one valid znode name and back:
 * percent-encoding of its UTF-8 bytes. Letters, digits and {@code - _ . ~ : @ + = ,} stay as they are, so
 * {@code order:42} stays readable in {@code zkCli}; every other byte, {@code %} itself and a leading {@code .}
 * (ZooKeeper refuses the names {@code .} and {@code ..}) becomes {@code %XX}.
 */
final class ZNodeNames {

    private static final char[] HEX = "0123456789ABCDEF".toCharArray();

    private ZNodeNames() {
    }

    /**
     * @param name a valid lock name
     * @return a znode name that only {@code name} maps to
     */
    static String encode(String name) {
        byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(utf8.length + 8);
        for (int i = 0; i < utf8.length; i++) {
            int b = utf8[i] & 0xFF;
            if (keepsAsIs(b) && !(i == 0 && b == '.')) {
                out.append((char) b);
            } else {
                out.append('%').append(HEX[b >> 4]).append(HEX[b & 0xF]);
            }
        }
        return out.toString();
    }

    /**
     * @param znodeName a name made by {@link #encode(String)}
     * @return the lock name
     * @throws IllegalArgumentException if {@code znodeName} is not percent-encoded UTF-8
     */
    static String decode(String znodeName) {
        ByteBuffer bytes = ByteBuffer.allocate(znodeName.length());
        for (int i = 0; i < znodeName.length(); i++) {
            char c = znodeName.charAt(i);
            if (c == '%') {
                if (i + 2 >= znodeName.length()) {
                    throw new IllegalArgumentException("'" + znodeName + "' ends inside an escape at index " + i);
                }
                int high = Character.digit(znodeName.charAt(i + 1), 16);
                int low = Character.digit(znodeName.charAt(i + 2), 16);
                if (high < 0 || low < 0) {
                    throw new IllegalArgumentException("'" + znodeName + "' has a bad escape at index " + i);
                }
                bytes.put((byte) (high << 4 | low));
                i += 2;
            } else if (c < 0x80 && keepsAsIs(c)) {
                bytes.put((byte) c);
            } else {
                throw new IllegalArgumentException("'" + znodeName + "' is not an encoded lock name: '" + c
                        + "' at index " + i + " should have been escaped");
            }
        }
        bytes.flip();
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(bytes)
                    .toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("'" + znodeName + "' does not decode to UTF-8: " + e, e);
        }
    }

    private static boolean keepsAsIs(int c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "-_.~:@+=,".indexOf(c) >= 0;
    }
}

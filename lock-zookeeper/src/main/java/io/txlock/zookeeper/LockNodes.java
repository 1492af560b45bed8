package io.txlock.zookeeper;

import io.txlock.spi.LockOwner;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The children of one lock's parent node: ephemeral sequential nodes {@code _c_<uuid>-lock-<sequence>} (Curator's
 * protected names), whose order is the queue. Their data is the owner, for {@code inspect}.
 */
final class LockNodes {

    /** The name every lock node is created with, before the protection prefix and the sequence number. */
    static final String NODE_NAME = "lock-";

    /**
     * Queue order: by sequence number. ZooKeeper's sequence is the parent's signed 32-bit child version, which
     * wraps from 2147483647 to -2147483648; comparing by wrapping difference keeps the order right across the
     * wrap, as long as the live children were created within 2^31 child changes of each other.
     */
    static final Comparator<String> QUEUE_ORDER = (a, b) -> Integer.signum(sequence(a) - sequence(b));

    private LockNodes() {
    }

    /**
     * @param children the child names of a lock's parent node
     * @return the lock nodes among them, first in the queue first
     */
    static List<String> queue(List<String> children) {
        List<String> nodes = new ArrayList<>(children.size());
        for (String child : children) {
            if (isLockNode(child)) {
                nodes.add(child);
            }
        }
        nodes.sort(QUEUE_ORDER);
        return nodes;
    }

    static boolean isLockNode(String child) {
        int at = child.lastIndexOf(NODE_NAME);
        if (at < 0) {
            return false;
        }
        try {
            Integer.parseInt(child.substring(at + NODE_NAME.length()));
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    static int sequence(String child) {
        return Integer.parseInt(child.substring(child.lastIndexOf(NODE_NAME) + NODE_NAME.length()));
    }

    /** @return the node data: the owner's host and id, one per line */
    static byte[] ownerData(LockOwner owner) {
        return (owner.host() + "\n" + owner.id()).getBytes(StandardCharsets.UTF_8);
    }

    /** @return the owner in node data written by {@link #ownerData}; unknown parts are empty */
    static Owner owner(byte[] data) {
        String text = data == null ? "" : new String(data, StandardCharsets.UTF_8);
        int newline = text.indexOf('\n');
        return newline < 0 ? new Owner(text, "") : new Owner(text.substring(0, newline), text.substring(newline + 1));
    }

    /** A holder as written in its node. */
    record Owner(String host, String id) {
    }
}

package io.txlock.it.adapterapp;

import jakarta.annotation.Resource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;

/** The application's order rows, on its JTA datasource (in the caller's transaction, if any). */
@ApplicationScoped
public class OrderRows {

    @Resource(lookup = "java:app/jdbc/txlock")
    DataSource dataSource;

    /**
     * @param orderNo the order number
     * @param lockToken the fencing token of the lock it was written under
     */
    public void insert(String orderNo, long lockToken) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO orders (id, order_no, lock_token) VALUES (?, ?, ?)")) {
            ps.setString(1, UUID.randomUUID().toString());
            ps.setString(2, orderNo);
            ps.setLong(3, lockToken);
            ps.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return the lock token of the order, if it is stored */
    public Optional<Long> token(String orderNo) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT lock_token FROM orders WHERE order_no = ?")) {
            ps.setString(1, orderNo);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(rs.getLong(1)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return how many rows the order has */
    public int count(String orderNo) {
        try (Connection c = dataSource.getConnection();
                PreparedStatement ps = c.prepareStatement("SELECT COUNT(*) FROM orders WHERE order_no = ?")) {
            ps.setString(1, orderNo);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}

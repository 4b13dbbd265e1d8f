package org.gpusched.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * Whether anything listens at a Kafka bootstrap address, asked with a plain TCP connect before any Kafka client starts:
 * with no broker, the clients retry for their full timeouts (tens of seconds of NetworkClient warnings) before
 * failing, so produce and run fail fast here instead with one line that says how to start the local broker.
 */
final class BrokerCheck {
    static final int CONNECT_TIMEOUT_MS = 2000;

    private BrokerCheck() {}

    /**
     * True when one of the comma-separated {@code bootstrap} addresses accepts a connection; otherwise prints
     * "gpusched CMD: no Kafka broker at ...; start a local one with bin/kafka-local start" and returns false.
     */
    static boolean reachable(String command, String bootstrap, PrintWriter err) {
        String why = null;
        for (String address : bootstrap.split(",")) {
            address = address.strip();
            int colon = address.lastIndexOf(':');
            if (colon <= 0) continue;
            try (Socket s = new Socket()) {
                s.connect(
                        new InetSocketAddress(
                                address.substring(0, colon), Integer.parseInt(address.substring(colon + 1))),
                        CONNECT_TIMEOUT_MS);
                return true;
            } catch (IOException | IllegalArgumentException e) {
                why = e.getMessage();
            }
        }
        err.println(
                "gpusched " + command + ": no Kafka broker at " + bootstrap + (why == null ? "" : " (" + why + ")")
                        + "; start a local one with bin/kafka-local start (127.0.0.1:9092), or give --bootstrap HOST:PORT of a running broker");
        err.flush();
        return false;
    }
}

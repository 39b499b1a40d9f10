package io.orderflow.dispatcher.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class AddressPolicyTest {

    private static final AddressPolicy DEFAULT = new AddressPolicy(false);
    private static final AddressPolicy ON_PREMISES = new AddressPolicy(true);

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            169.254.169.254      | refused: 169.254.169.254 is a cloud metadata address
            169.254.170.2        | refused: 169.254.170.2 is a cloud metadata address
            100.100.100.200      | refused: 100.100.100.200 is a cloud metadata address
            fd00:ec2::254        | refused: fd00:ec2:0:0:0:0:0:254 is a cloud metadata address
            10.0.0.1             | refused: 10.0.0.1 is a private address
            172.16.5.4           | refused: 172.16.5.4 is a private address
            172.31.255.255       | refused: 172.31.255.255 is a private address
            192.168.1.1          | refused: 192.168.1.1 is a private address
            fd12:3456::1         | refused: fd12:3456:0:0:0:0:0:1 is a private address
            100.64.0.1           | refused: 100.64.0.1 is a shared (CGNAT) address
            100.127.255.254      | refused: 100.127.255.254 is a shared (CGNAT) address
            169.254.1.1          | refused: 169.254.1.1 is a link-local address
            fe80::1              | refused: fe80:0:0:0:0:0:0:1 is a link-local address
            127.0.0.1            | refused: 127.0.0.1 is a loopback address (allowed over http only)
            127.8.9.10           | refused: 127.8.9.10 is a loopback address (allowed over http only)
            ::1                  | refused: 0:0:0:0:0:0:0:1 is a loopback address (allowed over http only)
            0.0.0.0              | refused: 0.0.0.0 is an unspecified address
            0.1.2.3              | refused: 0.1.2.3 is an unspecified address
            ::                   | refused: 0:0:0:0:0:0:0:0 is an unspecified address
            224.0.0.1            | refused: 224.0.0.1 is a multicast address
            ff02::1              | refused: ff02:0:0:0:0:0:0:1 is a multicast address
            255.255.255.255      | refused: 255.255.255.255 is a broadcast address
            ::ffff:10.0.0.1      | refused: 10.0.0.1 is a private address
            ::ffff:169.254.169.254 | refused: 169.254.169.254 is a cloud metadata address
            64:ff9b::a9fe:a9fe   | refused: 64:ff9b:0:0:0:0:a9fe:a9fe is a cloud metadata address
            ::a00:1              | refused: 0:0:0:0:0:0:a00:1 is a private address
            198.18.0.1           | refused: 198.18.0.1 is a benchmarking address
            198.19.255.254       | refused: 198.19.255.254 is a benchmarking address
            240.0.0.1            | refused: 240.0.0.1 is a reserved address
            254.1.2.3            | refused: 254.1.2.3 is a reserved address
            64:ff9b:1::a00:1     | refused: 64:ff9b:1:0:0:0:a00:1 is a local-use NAT64 address
            64:ff9b:1:ffff::1    | refused: 64:ff9b:1:ffff:0:0:0:1 is a local-use NAT64 address
            """)
    void refusesSpecialAddressesOverHttpsWithTheReason(String address, String reason) throws Exception {
        assertThat(DEFAULT.refusal(InetAddress.getByName(address), "https")).contains(reason);
    }

    @ParameterizedTest
    @ValueSource(strings = {"93.184.215.14", "8.8.8.8", "172.32.0.1", "100.128.0.1", "2606:4700::1111",
            "192.169.0.1", "198.17.255.255", "198.20.0.1", "64:ff9b:2::1"})
    void letsPublicAddressesThrough(String address) throws Exception {
        assertThat(DEFAULT.refusal(InetAddress.getByName(address), "https")).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "::1"})
    void letsLoopbackThroughOverPlainHttpOnly(String address) throws Exception {
        assertThat(DEFAULT.refusal(InetAddress.getByName(address), "http")).isEmpty();
        assertThat(DEFAULT.refusal(InetAddress.getByName(address), "https")).isPresent();
    }

    @ParameterizedTest
    @ValueSource(strings = {"10.0.0.1", "172.16.0.1", "192.168.1.1", "fd12:3456::1", "100.64.0.1", "198.18.0.1",
            "64:ff9b:1::a00:1"})
    void allowPrivateOpensThePrivateAndSharedRanges(String address) throws Exception {
        assertThat(ON_PREMISES.refusal(InetAddress.getByName(address), "https")).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"169.254.169.254", "fd00:ec2::254", "100.100.100.200", "169.254.1.1", "fe80::1",
            "0.0.0.0", "224.0.0.1", "240.0.0.1"})
    void allowPrivateNeverOpensMetadataLinkLocalOrSpecialAddresses(String address) throws Exception {
        Optional<String> refusal = ON_PREMISES.refusal(InetAddress.getByName(address), "https");
        assertThat(refusal).isPresent();
    }
}

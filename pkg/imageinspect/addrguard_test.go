/*
Copyright The windows-aware Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package imageinspect

import (
	"bytes"
	"net"
	"net/netip"
	"testing"
)

func TestForbiddenAddr(t *testing.T) {
	tests := []struct {
		addr string
		want bool
	}{
		// The host, private networks, metadata services.
		{addr: "127.0.0.1", want: true}, {addr: "::1", want: true}, {addr: "10.1.2.3", want: true}, {addr: "172.16.0.1", want: true}, {addr: "192.168.1.1", want: true},
		{addr: "169.254.169.254", want: true}, {addr: "fd00:ec2::254", want: true}, {addr: "fe80::1", want: true}, {addr: "fe80::1%eth0", want: true},
		{addr: "0.0.0.0", want: true}, {addr: "::", want: true}, {addr: "100.100.100.200", want: true}, {addr: "0.1.2.3", want: true}, {addr: "224.0.0.1", want: true},
		{addr: "168.63.129.16", want: true}, {addr: "192.0.0.192", want: true},
		// IANA special-purpose blocks that are not globally reachable.
		{addr: "192.0.0.8", want: true}, {addr: "192.0.2.1", want: true}, {addr: "192.88.99.1", want: true}, {addr: "198.18.0.1", want: true}, {addr: "198.19.255.255", want: true},
		{addr: "198.51.100.7", want: true}, {addr: "203.0.113.9", want: true}, {addr: "240.0.0.1", want: true}, {addr: "255.255.255.255", want: true},
		{addr: "64:ff9b:1::a00:1", want: true}, {addr: "100::1", want: true}, {addr: "2001::1", want: true}, {addr: "2001:db8::1", want: true},
		{addr: "2002:a00:1::", want: true}, {addr: "2002:808:808::", want: true}, {addr: "3fff::1", want: true}, {addr: "5f00::1", want: true},
		{addr: "fec0::1", want: true}, {addr: "ff02::1", want: true}, {addr: "::127.0.0.1", want: true}, {addr: "::ffff:0:a00:1", want: true},
		// IPv4 carried in IPv6: judged by the IPv4 address.
		{addr: "::ffff:127.0.0.1", want: true}, {addr: "::ffff:10.0.0.1", want: true}, {addr: "::ffff:169.254.169.254", want: true},
		{addr: "::ffff:168.63.129.16", want: true}, {addr: "64:ff9b::a9fe:a9fe", want: true}, {addr: "64:ff9b::10.0.0.1", want: true},
		{addr: "64:ff9b::198.18.0.1", want: true},
		// Public.
		{addr: "20.50.2.3", want: false}, {addr: "13.107.246.1", want: false}, {addr: "2606:4700::1111", want: false}, {addr: "64:ff9b::808:808", want: false},
		{addr: "::ffff:8.8.8.8", want: false}, {addr: "168.63.129.17", want: false}, {addr: "198.20.0.1", want: false}, {addr: "192.0.3.1", want: false},
		{addr: "223.255.255.255", want: false}, {addr: "2001:4860:4860::8888", want: false}, {addr: "2a00:1450::1", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			if got := forbiddenAddr(netip.MustParseAddr(tt.addr)); got != tt.want {
				t.Errorf("forbiddenAddr(%s) = %v, want %v", tt.addr, got, tt.want)
			}
		})
	}
}

// FuzzAddressGuard: for any address, in its 16-byte and 4-byte forms, the
// guard answers as a reference check written another way does: first and
// last addresses of each range, compared as bytes, after unwrapping the
// IPv4 address an IPv4-mapped or NAT64 address carries.
func FuzzAddressGuard(f *testing.F) {
	for _, seed := range []string{"::ffff:10.0.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b:1::1", "2002:a00:1::", "168.63.129.16", "8.8.8.8", "2606:4700::1111", "fe80::1"} {
		b := netip.MustParseAddr(seed).As16()
		f.Add(b[:])
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var b [16]byte
		copy(b[:], raw)
		ip := netip.AddrFrom16(b)
		if got, want := forbiddenAddr(ip), referenceForbidden(b); got != want {
			t.Fatalf("forbiddenAddr(%s) = %v, reference %v", ip, got, want)
		}
		v4 := netip.AddrFrom4([4]byte{b[0], b[1], b[2], b[3]})
		if got, want := forbiddenAddr(v4), referenceForbidden(v4.As16()); got != want {
			t.Fatalf("forbiddenAddr(%s) = %v, reference %v", v4, got, want)
		}
	})
}

// addrRange is a closed range of addresses in 16-byte form.
type addrRange struct{ first, last []byte }

var (
	referenceV4 = bytesRanges([][2]string{
		{"0.0.0.0", "0.255.255.255"}, {"10.0.0.0", "10.255.255.255"}, {"100.64.0.0", "100.127.255.255"},
		{"127.0.0.0", "127.255.255.255"}, {"168.63.129.16", "168.63.129.16"}, {"169.254.0.0", "169.254.255.255"},
		{"172.16.0.0", "172.31.255.255"}, {"192.0.0.0", "192.0.0.255"}, {"192.0.2.0", "192.0.2.255"},
		{"192.88.99.0", "192.88.99.255"}, {"192.168.0.0", "192.168.255.255"}, {"198.18.0.0", "198.19.255.255"},
		{"198.51.100.0", "198.51.100.255"}, {"203.0.113.0", "203.0.113.255"}, {"224.0.0.0", "255.255.255.255"},
	})
	referenceV6 = bytesRanges([][2]string{
		{"::", "::ffff:ffff"}, {"::ffff:0:0:0", "::ffff:0:ffff:ffff"}, {"64:ff9b:1::", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff"},
		{"100::", "100::ffff:ffff:ffff:ffff"}, {"100:0:0:1::", "100:0:0:1:ffff:ffff:ffff:ffff"},
		{"2001::", "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff"}, {"2001:db8::", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"},
		{"2002::", "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff"}, {"3fff::", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff"},
		{"5f00::", "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff"}, {"fc00::", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"},
		{"fe80::", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff"}, {"fec0::", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"},
		{"ff00::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"},
	})
	mappedPrefix = []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff}
	nat64Prefix  = []byte{0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0}
)

func referenceForbidden(b [16]byte) bool {
	ranges := referenceV6
	if bytes.HasPrefix(b[:], mappedPrefix) || bytes.HasPrefix(b[:], nat64Prefix) {
		copy(b[:12], mappedPrefix)
		ranges = referenceV4
	}
	for _, r := range ranges {
		if bytes.Compare(b[:], r.first) >= 0 && bytes.Compare(b[:], r.last) <= 0 {
			return true
		}
	}
	return false
}

// bytesRanges spells each range's ends as 16 bytes.
func bytesRanges(rs [][2]string) []addrRange {
	out := make([]addrRange, len(rs))
	for i, r := range rs {
		out[i] = addrRange{net.ParseIP(r[0]).To16(), net.ParseIP(r[1]).To16()}
	}
	return out
}

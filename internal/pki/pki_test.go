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

package pki

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"testing"
)

func TestIssuedCertificatesVerify(t *testing.T) {
	ca, err := NewCA(t.TempDir(), "test-ca")
	if err != nil {
		t.Fatal(err)
	}
	servingCert, servingKey, err := ca.IssueLoopbackServing("server", "server", "registry.test")
	if err != nil {
		t.Fatal(err)
	}
	clientCert, clientKey, err := ca.Issue(Request{Name: "client", CommonName: "alice", Organizations: []string{"admins"}, Usage: x509.ExtKeyUsageClientAuth})
	if err != nil {
		t.Fatal(err)
	}
	load := func(certFile, keyFile string) *x509.Certificate {
		pair, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			t.Fatal(err)
		}
		cert, err := x509.ParseCertificate(pair.Certificate[0])
		if err != nil {
			t.Fatal(err)
		}
		return cert
	}
	server, client := load(servingCert, servingKey), load(clientCert, clientKey)

	cases := []struct {
		name    string
		cert    *x509.Certificate
		dnsName string
		usage   x509.ExtKeyUsage
		wantErr bool
	}{
		{name: "serving for 127.0.0.1", cert: server, dnsName: "127.0.0.1", usage: x509.ExtKeyUsageServerAuth},
		{name: "serving for localhost", cert: server, dnsName: "localhost", usage: x509.ExtKeyUsageServerAuth},
		{name: "serving for an extra name", cert: server, dnsName: "registry.test", usage: x509.ExtKeyUsageServerAuth},
		{name: "serving for another name", cert: server, dnsName: "example.com", usage: x509.ExtKeyUsageServerAuth, wantErr: true},
		{name: "client certificate as a client", cert: client, usage: x509.ExtKeyUsageClientAuth},
		{name: "client certificate as a server", cert: client, dnsName: "127.0.0.1", usage: x509.ExtKeyUsageServerAuth, wantErr: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.cert.Verify(x509.VerifyOptions{Roots: ca.Pool(), DNSName: tc.dnsName, KeyUsages: []x509.ExtKeyUsage{tc.usage}})
			if (err != nil) != tc.wantErr {
				t.Errorf("Verify: %v, want error %v", err, tc.wantErr)
			}
		})
	}
	if client.Subject.CommonName != "alice" || len(client.Subject.Organization) != 1 || client.Subject.Organization[0] != "admins" {
		t.Errorf("client subject %v, want CN=alice O=admins", client.Subject)
	}
	if st, err := os.Stat(clientKey); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v (%v), want 0600", st.Mode().Perm(), err)
	}
}

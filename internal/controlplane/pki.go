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

package controlplane

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// pki is the certificates and keys of one cluster, written under dir: a CA,
// the API server's serving certificate for 127.0.0.1 and localhost, the
// service-account signing key, and one client certificate per identity.
type pki struct {
	dir    string
	caCert *x509.Certificate
	caKey  crypto.Signer
	// CAFile signs every certificate below; the API server trusts client
	// certificates it signed.
	CAFile string
	// ServingCertFile and ServingKeyFile are the API server's.
	ServingCertFile, ServingKeyFile string
	// SAKeyFile signs service-account tokens (the API server reads the
	// public key from it too).
	SAKeyFile string
}

func newPKI(dir string) (*pki, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	p := &pki{dir: dir}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	ca, err := certutil.NewSelfSignedCACert(certutil.Config{CommonName: "windows-aware-test-ca"}, key)
	if err != nil {
		return nil, err
	}
	p.caCert, p.caKey = ca, key
	p.CAFile = filepath.Join(dir, "ca.crt")
	if err := certutil.WriteCert(p.CAFile, pemCert(ca.Raw)); err != nil {
		return nil, err
	}

	p.ServingCertFile, p.ServingKeyFile, err = p.issue("apiserver", "kube-apiserver", nil,
		x509.ExtKeyUsageServerAuth, []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		[]net.IP{net.ParseIP("127.0.0.1")})
	if err != nil {
		return nil, err
	}

	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	p.SAKeyFile = filepath.Join(dir, "sa.key")
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(saKey)
	if err != nil {
		return nil, err
	}
	if err := keyutil.WriteKey(p.SAKeyFile, keyPEM); err != nil {
		return nil, err
	}
	return p, nil
}

// clientCert issues a client certificate for user in groups and returns its
// PEM files.
func (p *pki) clientCert(name, user string, groups ...string) (certFile, keyFile string, err error) {
	return p.issue(name, user, groups, x509.ExtKeyUsageClientAuth, nil, nil)
}

func (p *pki) issue(name, cn string, orgs []string, usage x509.ExtKeyUsage, dnsNames []string, ips []net.IP) (certFile, keyFile string, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return "", "", err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn, Organization: orgs},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{usage},
		DNSNames:     dnsNames,
		IPAddresses:  ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.caCert, key.Public(), p.caKey)
	if err != nil {
		return "", "", fmt.Errorf("issuing %s certificate: %w", name, err)
	}
	certFile = filepath.Join(p.dir, name+".crt")
	keyFile = filepath.Join(p.dir, name+".key")
	if err := certutil.WriteCert(certFile, pemCert(der)); err != nil {
		return "", "", err
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return "", "", err
	}
	if err := keyutil.WriteKey(keyFile, keyPEM); err != nil {
		return "", "", err
	}
	return certFile, keyFile, nil
}

func pemCert(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

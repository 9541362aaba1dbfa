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

// Package pki issues the throwaway certificates of the servers this project
// runs on 127.0.0.1 for its tests and make demo (kube-apiserver, the OCI
// registry): a self-signed CA, and serving and client certificates it signs,
// written as PEM files. ECDSA P-256 keys, valid for a year.
package pki

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
)

// CA is a certificate authority whose certificate and issued files live in
// one directory.
type CA struct {
	// Dir holds CertFile and every file Issue writes.
	Dir string
	// CertFile is the CA certificate (PEM), for clients to trust.
	CertFile string

	cert *x509.Certificate
	key  crypto.Signer
}

// NewCA creates dir (mode 0700) and a self-signed CA named commonName in it,
// written to dir/ca.crt.
func NewCA(dir, commonName string) (*CA, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	key, err := NewKey()
	if err != nil {
		return nil, err
	}
	serial, err := newSerial()
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageKeyEncipherment | x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("creating CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	ca := &CA{Dir: dir, CertFile: filepath.Join(dir, "ca.crt"), cert: cert, key: key}
	if err := writeFile(ca.CertFile, CertPEM(der)); err != nil {
		return nil, err
	}
	return ca, nil
}

// Certificate is the CA certificate.
func (ca *CA) Certificate() *x509.Certificate { return ca.cert }

// Pool is a certificate pool holding only this CA.
func (ca *CA) Pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	return pool
}

// Request describes one certificate to issue.
type Request struct {
	// Name names the files: Dir/Name.crt and Dir/Name.key.
	Name string
	// CommonName and Organizations are the subject (a client certificate's
	// user and groups, for kube-apiserver).
	CommonName    string
	Organizations []string
	// Usage is x509.ExtKeyUsageServerAuth or x509.ExtKeyUsageClientAuth.
	Usage x509.ExtKeyUsage
	// DNSNames and IPs are a serving certificate's names.
	DNSNames []string
	IPs      []net.IP
}

// Issue signs a new key's certificate for r and writes both as PEM files.
func (ca *CA) Issue(r Request) (certFile, keyFile string, err error) {
	key, err := NewKey()
	if err != nil {
		return "", "", err
	}
	serial, err := newSerial()
	if err != nil {
		return "", "", err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: r.CommonName, Organization: r.Organizations},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{r.Usage},
		DNSNames:     r.DNSNames,
		IPAddresses:  r.IPs,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, key.Public(), ca.key)
	if err != nil {
		return "", "", fmt.Errorf("issuing %s certificate: %w", r.Name, err)
	}
	certFile = filepath.Join(ca.Dir, r.Name+".crt")
	keyFile = filepath.Join(ca.Dir, r.Name+".key")
	if err := writeFile(certFile, CertPEM(der)); err != nil {
		return "", "", err
	}
	if err := WriteKey(keyFile, key); err != nil {
		return "", "", err
	}
	return certFile, keyFile, nil
}

// IssueLoopbackServing issues a serving certificate named name for
// 127.0.0.1 and localhost, plus extraDNSNames.
func (ca *CA) IssueLoopbackServing(name, commonName string, extraDNSNames ...string) (certFile, keyFile string, err error) {
	return ca.Issue(Request{
		Name:       name,
		CommonName: commonName,
		Usage:      x509.ExtKeyUsageServerAuth,
		DNSNames:   append([]string{"localhost"}, extraDNSNames...),
		IPs:        []net.IP{net.IPv4(127, 0, 0, 1)},
	})
}

// NewKey generates an ECDSA P-256 key.
func NewKey() (*ecdsa.PrivateKey, error) {
	return ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
}

// WriteKey writes key as a PEM "EC PRIVATE KEY" block, readable only by
// its owner.
func WriteKey(path string, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), 0o600)
}

// CertPEM encodes a DER certificate as PEM.
func CertPEM(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func writeFile(path string, data []byte) error {
	return os.WriteFile(path, data, 0o644)
}

func newSerial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
}

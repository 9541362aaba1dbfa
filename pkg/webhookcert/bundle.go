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

package webhookcert

import (
	"bytes"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"net"
	"slices"
	"time"

	"k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// The keys of the Secret. tls.crt and tls.key are those of a
// kubernetes.io/tls Secret; ca.crt holds the CA that signs (first) and the
// CAs still trusted, ca.key the key of the first.
const (
	KeyCACert = "ca.crt"
	KeyCAKey  = "ca.key"
	KeyCert   = "tls.crt"
	KeyKey    = "tls.key"
)

// Lifetimes are how long the certificates are valid. Each is renewed at
// two thirds of its life.
type Lifetimes struct {
	CA      time.Duration
	Serving time.Duration
}

// DefaultLifetimes: a CA of 10 years (renewed after about 6.7), a serving
// certificate of one year (renewed after 8 months).
var DefaultLifetimes = Lifetimes{CA: 10 * 365 * 24 * time.Hour, Serving: 365 * 24 * time.Hour}

// backdate is how long before its creation a certificate is valid, for
// API servers whose clocks run behind the webhook's.
const backdate = 5 * time.Minute

// Bundle is the content of the Secret, parsed.
type Bundle struct {
	// CA signs serving certificates; CAKey is its key.
	CA    *x509.Certificate
	CAKey crypto.Signer
	// Trusted is every CA of ca.crt, CA first: what the API server must
	// trust.
	Trusted []*x509.Certificate
	// Serving is the leaf certificate of tls.crt; nil when tls.crt or
	// tls.key is missing or does not parse.
	Serving *x509.Certificate
	// KeyPair is tls.crt and tls.key, ready to serve; nil with Serving.
	KeyPair *tls.Certificate
}

// Parse reads the Secret's data. It fails when there is no usable CA
// (ca.crt and ca.key missing, unparsable, or not a pair); a missing or
// broken serving pair only leaves Serving nil, since the CA can sign a new
// one.
func Parse(data map[string][]byte) (*Bundle, error) {
	if len(data[KeyCACert]) == 0 || len(data[KeyCAKey]) == 0 {
		return nil, errors.New("no CA in the Secret")
	}
	trusted, err := cert.ParseCertsPEM(data[KeyCACert])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", KeyCACert, err)
	}
	key, err := keyutil.ParsePrivateKeyPEM(data[KeyCAKey])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", KeyCAKey, err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok || !publicKeysEqual(signer.Public(), trusted[0].PublicKey) {
		return nil, fmt.Errorf("%s is not the key of the first certificate of %s", KeyCAKey, KeyCACert)
	}
	if !trusted[0].IsCA {
		return nil, fmt.Errorf("the first certificate of %s is not a CA", KeyCACert)
	}
	b := &Bundle{CA: trusted[0], CAKey: signer, Trusted: trusted}
	if pair, err := tls.X509KeyPair(data[KeyCert], data[KeyKey]); err == nil {
		if leaf, err := x509.ParseCertificate(pair.Certificate[0]); err == nil {
			pair.Leaf = leaf
			b.Serving, b.KeyPair = leaf, &pair
		}
	}
	return b, nil
}

func publicKeysEqual(a, b crypto.PublicKey) bool {
	ka, ok := a.(interface{ Equal(crypto.PublicKey) bool })
	return ok && ka.Equal(b)
}

// renewAt is when a certificate is renewed: at two thirds of its life.
func renewAt(c *x509.Certificate) time.Time {
	life := c.NotAfter.Sub(c.NotBefore)
	return c.NotBefore.Add(life * 2 / 3)
}

// Plan is what the Secret should hold, worked out by Next.
type Plan struct {
	// Data is the Secret's new data; equal to the current data when
	// Changed is false.
	Data map[string][]byte
	// Changed tells whether Data differs from the current data.
	Changed bool
	// Reasons say what changed, for the log (never key material).
	Reasons []string
	// Bundle is Data, parsed.
	Bundle *Bundle
	// RecheckAt is when the bundle must be looked at again: the earliest
	// renewal or expiry in it.
	RecheckAt time.Time
}

// Next works out what the Secret holding data should hold at now, for a
// serving certificate that names names (DNS names, or IP addresses):
//
//   - no usable CA: a new CA, and a serving certificate it signs;
//   - the CA due for renewal: a new serving certificate signed by the old
//     CA, then a new CA, added in front of the trusted CAs; the new CA
//     signs the serving certificate after that one, so the API server has
//     trusted it for two thirds of a serving certificate's life before it
//     sees a certificate it signed;
//   - the serving certificate missing, due for renewal, naming other names
//     or not verifying against the trusted CAs: a new one, signed by the CA;
//   - a certificate the CA signs not verifying either (a critical extension
//     the verifier does not know, usages or name constraints that exclude
//     serving the names): a new CA and serving certificate, as when there
//     is no usable CA;
//   - expired CAs dropped from the trusted ones.
func Next(data map[string][]byte, names []string, now time.Time, l Lifetimes) (*Plan, error) {
	if len(names) == 0 {
		return nil, errors.New("no names for the serving certificate")
	}
	p := &Plan{}
	issued := false // a serving certificate was signed below
	b, err := Parse(data)
	switch {
	case err != nil:
		p.Reasons = append(p.Reasons, "new CA: "+err.Error())
		b = &Bundle{}
		if err := b.newCA(now, l.CA); err != nil {
			return nil, err
		}
	case !now.Before(b.CA.NotAfter):
		p.Reasons = append(p.Reasons, "new CA: the CA expired")
		b = &Bundle{}
		if err := b.newCA(now, l.CA); err != nil {
			return nil, err
		}
	case !now.Before(renewAt(b.CA)):
		// The old CA signs one last serving certificate, which lasts
		// until the API server has long trusted the new CA.
		p.Reasons = append(p.Reasons, "new CA: the CA is due for renewal", "new serving certificate: the last one the old CA signs")
		if err := b.newServing(names, now, l.Serving); err != nil {
			return nil, err
		}
		issued = true
		if err := b.newCA(now, l.CA); err != nil {
			return nil, err
		}
	}
	// Expired CAs are of no use to anyone.
	b.Trusted = slices.DeleteFunc(b.Trusted, func(c *x509.Certificate) bool { return c != b.CA && !now.Before(c.NotAfter) })

	if why := b.servingProblem(names, now); why != "" {
		p.Reasons = append(p.Reasons, "new serving certificate: "+why)
		if err := b.newServing(names, now, l.Serving); err != nil {
			return nil, err
		}
		issued = true
	}
	// A certificate the CA has just signed that does not verify means the
	// CA cannot anchor a chain for serving these names: a critical
	// extension the verifier does not know, key usages or name constraints
	// that exclude them. Parse cannot tell (it would have to know the
	// names and the time); signing tells. Such a CA is replaced, as an
	// unusable one is.
	// (A serving certificate kept from the Secret was verified above.)
	if issued {
		if why := b.servingProblem(names, now); why != "" {
			p.Reasons = append(p.Reasons, "new CA: a certificate the CA signed "+why, "new serving certificate: signed by the new CA")
			b = &Bundle{}
			if err := b.newCA(now, l.CA); err != nil {
				return nil, err
			}
			if err := b.newServing(names, now, l.Serving); err != nil {
				return nil, err
			}
		}
	}

	p.Data, err = b.encode(data)
	if err != nil {
		return nil, err
	}
	for _, k := range []string{KeyCACert, KeyCAKey, KeyCert, KeyKey} {
		if !bytes.Equal(p.Data[k], data[k]) {
			p.Changed = true
		}
	}
	if !p.Changed {
		p.Reasons = nil
	}
	p.Bundle = b
	p.RecheckAt = earliest(renewAt(b.CA), renewAt(b.Serving))
	for _, c := range b.Trusted[1:] {
		p.RecheckAt = earliest(p.RecheckAt, c.NotAfter)
	}
	return p, nil
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// servingProblem says why the serving certificate cannot be served on as
// it is, or "" when it can.
func (b *Bundle) servingProblem(names []string, now time.Time) string {
	s := b.Serving
	switch {
	case s == nil:
		return "none in the Secret"
	case !now.Before(renewAt(s)):
		return "due for renewal"
	case !sameNames(s, names):
		return "it names other hosts"
	}
	pool := x509.NewCertPool()
	for _, c := range b.Trusted {
		pool.AddCert(c)
	}
	if _, err := s.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
		return "does not verify against the trusted CAs: " + err.Error()
	}
	return ""
}

// sameNames tells whether the certificate names exactly names.
func sameNames(c *x509.Certificate, names []string) bool {
	dns, ips := splitNames(names)
	if len(c.DNSNames) != len(dns) || len(c.IPAddresses) != len(ips) {
		return false
	}
	for i := range dns {
		if c.DNSNames[i] != dns[i] {
			return false
		}
	}
	for i := range ips {
		if !c.IPAddresses[i].Equal(ips[i]) {
			return false
		}
	}
	return true
}

func splitNames(names []string) (dns []string, ips []net.IP) {
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			ips = append(ips, ip)
		} else {
			dns = append(dns, n)
		}
	}
	return dns, ips
}

// newCA makes a new CA the signing one, in front of the trusted ones.
func (b *Bundle) newCA(now time.Time, life time.Duration) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	serial, err := newSerial()
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: fmt.Sprintf("windows-aware-publish-ca@%d", now.Unix())},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.Add(life),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return err
	}
	ca, err := x509.ParseCertificate(der)
	if err != nil {
		return err
	}
	b.CA, b.CAKey = ca, key
	b.Trusted = append([]*x509.Certificate{ca}, b.Trusted...)
	return nil
}

// newServing issues a serving certificate for names, signed by the CA and
// expiring no later than it.
func (b *Bundle) newServing(names []string, now time.Time, life time.Duration) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	serial, err := newSerial()
	if err != nil {
		return err
	}
	dns, ips := splitNames(names)
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: names[0]},
		NotBefore:    now.Add(-backdate),
		NotAfter:     earliest(now.Add(life), b.CA.NotAfter),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     dns,
		IPAddresses:  ips,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, b.CA, key.Public(), b.CAKey)
	if err != nil {
		return err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return err
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return err
	}
	certPEM, err := cert.EncodeCertificates(leaf)
	if err != nil {
		return err
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return err
	}
	pair.Leaf = leaf
	b.Serving, b.KeyPair = leaf, &pair
	return nil
}

func newSerial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
}

// encode writes the bundle as Secret data, keeping the bytes of what did
// not change (so that an unchanged bundle compares equal) and every other
// key of old.
func (b *Bundle) encode(old map[string][]byte) (map[string][]byte, error) {
	out := make(map[string][]byte, len(old)+4)
	for k, v := range old {
		out[k] = v
	}
	caPEM, err := cert.EncodeCertificates(b.Trusted...)
	if err != nil {
		return nil, err
	}
	out[KeyCACert] = caPEM
	if cur, err := Parse(old); err != nil || !cur.CA.Equal(b.CA) {
		keyPEM, err := keyutil.MarshalPrivateKeyToPEM(b.CAKey)
		if err != nil {
			return nil, err
		}
		out[KeyCAKey] = keyPEM
	}
	if cur, err := Parse(old); err != nil || cur.Serving == nil || !cur.Serving.Equal(b.Serving) {
		certPEM, err := cert.EncodeCertificates(b.Serving)
		if err != nil {
			return nil, err
		}
		keyPEM, err := keyutil.MarshalPrivateKeyToPEM(b.KeyPair.PrivateKey)
		if err != nil {
			return nil, err
		}
		out[KeyCert], out[KeyKey] = certPEM, keyPEM
	}
	return out, nil
}

// CABundle is the PEM of the trusted CAs, for the webhook configuration's
// caBundle.
func (b *Bundle) CABundle() ([]byte, error) {
	return cert.EncodeCertificates(b.Trusted...)
}

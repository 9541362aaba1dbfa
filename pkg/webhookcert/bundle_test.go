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
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/asn1"
	"encoding/pem"
	"math/big"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/util/keyutil"
)

var (
	testNames = ServiceNames("windows-aware-publish", "kube-system")
	t0        = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	day       = 24 * time.Hour
	// Short lifetimes keep the arithmetic readable: a serving certificate
	// renewed after 20 days, a CA after 200.
	testLifetimes = Lifetimes{CA: 300 * day, Serving: 30 * day}
)

// mustNext runs Next and fails the test on an error.
func mustNext(t *testing.T, data map[string][]byte, names []string, now time.Time) *Plan {
	t.Helper()
	p, err := Next(data, names, now, testLifetimes)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// verifies tells whether the plan's serving certificate chains to one of
// its trusted CAs at now, as the API server checks it.
func verifies(p *Plan, name string, now time.Time) error {
	pool := x509.NewCertPool()
	for _, c := range p.Bundle.Trusted {
		pool.AddCert(c)
	}
	_, err := p.Bundle.Serving.Verify(x509.VerifyOptions{Roots: pool, DNSName: name, CurrentTime: now})
	return err
}

func TestNextLifecycle(t *testing.T) {
	first := mustNext(t, map[string][]byte{}, testNames, t0)

	for _, tc := range []struct {
		name string
		// data and now are what Next is given; names, testNames when nil.
		data  map[string][]byte
		names []string
		now   time.Time
		// What is expected of the result against the first bundle.
		wantChanged    bool
		wantNewCA      bool
		wantNewServing bool
		wantTrusted    int
		wantSignedBy   string // "first" or "new": the CA that signed the serving certificate
		wantReason     string
	}{
		{
			name: "a valid bundle is left as it is", data: first.Data, now: t0.Add(10 * day),
			wantTrusted: 1, wantSignedBy: "first",
		},
		{
			name: "the serving certificate is renewed at two thirds of its life", data: first.Data, now: t0.Add(20 * day),
			wantChanged: true, wantNewServing: true, wantTrusted: 1, wantSignedBy: "first", wantReason: "due for renewal",
		},
		{
			name: "other names get a new serving certificate", data: first.Data, names: []string{"other.kube-system.svc", "127.0.0.1"}, now: t0.Add(day),
			wantChanged: true, wantNewServing: true, wantTrusted: 1, wantSignedBy: "first", wantReason: "other hosts",
		},
		{
			name: "a missing serving key gets a new serving certificate", data: without(first.Data, KeyKey), now: t0.Add(day),
			wantChanged: true, wantNewServing: true, wantTrusted: 1, wantSignedBy: "first", wantReason: "none in the Secret",
		},
		{
			name: "a CA due for renewal signs one last serving certificate, and a new CA is trusted beside it", data: first.Data, now: t0.Add(200 * day),
			wantChanged: true, wantNewCA: true, wantNewServing: true, wantTrusted: 2, wantSignedBy: "first", wantReason: "CA is due for renewal",
		},
		{
			name: "an expired CA is replaced", data: first.Data, now: t0.Add(301 * day),
			wantChanged: true, wantNewCA: true, wantNewServing: true, wantTrusted: 1, wantSignedBy: "new", wantReason: "CA expired",
		},
		{
			name: "a CA key of another CA starts over", data: with(first.Data, KeyCAKey, mustNext(t, nil, testNames, t0).Data[KeyCAKey]), now: t0.Add(day),
			wantChanged: true, wantNewCA: true, wantNewServing: true, wantTrusted: 1, wantSignedBy: "new", wantReason: "not the key",
		},
		{
			name: "garbage starts over", data: map[string][]byte{KeyCACert: []byte("not PEM"), KeyCAKey: []byte("-----BEGIN EC PRIVATE KEY-----\n-----END EC PRIVATE KEY-----\n")}, now: t0,
			wantChanged: true, wantNewCA: true, wantNewServing: true, wantTrusted: 1, wantSignedBy: "new", wantReason: "new CA",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			names := tc.names
			if names == nil {
				names = testNames
			}
			p := mustNext(t, tc.data, names, tc.now)
			if p.Changed != tc.wantChanged {
				t.Errorf("changed %v, want %v (reasons %v)", p.Changed, tc.wantChanged, p.Reasons)
			}
			if got := !p.Bundle.CA.Equal(first.Bundle.CA); got != tc.wantNewCA {
				t.Errorf("new CA %v, want %v", got, tc.wantNewCA)
			}
			if got := !p.Bundle.Serving.Equal(first.Bundle.Serving); got != tc.wantNewServing {
				t.Errorf("new serving certificate %v, want %v", got, tc.wantNewServing)
			}
			if len(p.Bundle.Trusted) != tc.wantTrusted {
				t.Errorf("%d trusted CAs, want %d", len(p.Bundle.Trusted), tc.wantTrusted)
			}
			signer := p.Bundle.CA
			if tc.wantSignedBy == "first" {
				signer = first.Bundle.CA
			}
			if err := p.Bundle.Serving.CheckSignatureFrom(signer); err != nil {
				t.Errorf("the serving certificate is not signed by the %s CA: %v", tc.wantSignedBy, err)
			}
			if err := verifies(p, names[0], tc.now); err != nil {
				t.Errorf("the serving certificate does not verify against the trusted CAs: %v", err)
			}
			if reasons := strings.Join(p.Reasons, "; "); !strings.Contains(reasons, tc.wantReason) {
				t.Errorf("reasons %q do not say %q", reasons, tc.wantReason)
			}
			if !p.Changed && !equalData(p.Data, tc.data) {
				t.Error("unchanged, but the data differ")
			}
			// What was written parses back to the same bundle.
			again := mustNext(t, p.Data, names, tc.now)
			if again.Changed {
				t.Errorf("the written bundle needs another change: %v", again.Reasons)
			}
			if !p.RecheckAt.After(tc.now) {
				t.Errorf("recheck at %v, not after %v", p.RecheckAt, tc.now)
			}
		})
	}
}

// TestNextReplacesACAThatCannotSign: a CA in the Secret that parses and
// matches its key, but whose serving certificates would not verify, is
// replaced as an unusable one is.
func TestNextReplacesACAThatCannotSign(t *testing.T) {
	for _, tc := range []struct {
		name   string
		shape  func(ca *x509.Certificate)
		reason string
	}{
		{
			name: "a critical extension the verifier does not know",
			shape: func(ca *x509.Certificate) {
				ca.ExtraExtensions = []pkix.Extension{{Id: asn1.ObjectIdentifier{1, 3, 6, 1, 4, 1, 99999, 1}, Critical: true, Value: []byte{0x05, 0x00}}}
			},
			reason: "unhandled critical extension",
		},
		{
			name:   "client authentication only",
			shape:  func(ca *x509.Certificate) { ca.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth} },
			reason: "incompatible key usage",
		},
		{
			name: "names constrained to another domain",
			shape: func(ca *x509.Certificate) {
				ca.PermittedDNSDomainsCritical = true
				ca.PermittedDNSDomains = []string{"example.com"}
			},
			reason: "does not verify",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := caOnly(t, tc.shape)
			given, err := Parse(data)
			if err != nil {
				t.Fatalf("the CA does not parse, so this tests nothing: %v", err)
			}
			p := mustNext(t, data, testNames, t0)
			if p.Bundle.CA.Equal(given.CA) {
				t.Fatalf("the CA was kept; reasons %v", p.Reasons)
			}
			if err := verifies(p, testNames[0], t0); err != nil {
				t.Errorf("the serving certificate does not verify: %v", err)
			}
			if reasons := strings.Join(p.Reasons, "; "); !strings.Contains(reasons, tc.reason) {
				t.Errorf("reasons %q do not say %q", reasons, tc.reason)
			}
			if again := mustNext(t, p.Data, testNames, t0); again.Changed {
				t.Errorf("the written bundle needs another change: %v", again.Reasons)
			}
		})
	}
}

// caOnly is a Secret's data holding a self-signed CA, shaped by shape, and
// its key.
func caOnly(t *testing.T, shape func(*x509.Certificate)) map[string][]byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "someone else's CA"},
		NotBefore:             t0.Add(-day),
		NotAfter:              t0.Add(100 * day),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	shape(tmpl)
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{
		KeyCACert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyCAKey:  keyPEM,
	}
}

// TestCARotation follows a bundle through a CA's renewal: the new CA is
// trusted from the start and signs only the serving certificate after the
// next; the old CA leaves the bundle when it expires; the API server,
// holding the trusted CAs of the Secret, accepts every certificate served.
func TestCARotation(t *testing.T) {
	p := mustNext(t, nil, testNames, t0)
	firstCA := p.Bundle.CA
	now := t0
	var sawNewSigner, sawOldDropped bool
	for step := 0; step < 40 && now.Before(t0.Add(600*day)); step++ {
		prev := p
		now = p.RecheckAt
		p = mustNext(t, p.Data, testNames, now)
		if err := verifies(p, testNames[0], now); err != nil {
			t.Fatalf("%v: the served certificate does not verify: %v", now, err)
		}
		// The CA that signs a new serving certificate was trusted
		// before this step, unless there was none.
		if !p.Bundle.Serving.Equal(prev.Bundle.Serving) && !trustedIn(prev, issuerOf(t, p)) {
			t.Fatalf("%v: the new serving certificate is signed by a CA the API server did not trust yet", now)
		}
		if !p.Bundle.CA.Equal(firstCA) && p.Bundle.Serving.CheckSignatureFrom(p.Bundle.CA) == nil {
			sawNewSigner = true
		}
		if sawNewSigner && !trustedIn(p, firstCA) {
			sawOldDropped = true
		}
	}
	if !sawNewSigner || !sawOldDropped {
		t.Errorf("over 600 days: a new CA signed %v, the first CA was dropped %v", sawNewSigner, sawOldDropped)
	}
}

func issuerOf(t *testing.T, p *Plan) *x509.Certificate {
	t.Helper()
	for _, c := range p.Bundle.Trusted {
		if p.Bundle.Serving.CheckSignatureFrom(c) == nil {
			return c
		}
	}
	t.Fatal("no trusted CA signed the serving certificate")
	return nil
}

func trustedIn(p *Plan, ca *x509.Certificate) bool {
	for _, c := range p.Bundle.Trusted {
		if c.Equal(ca) {
			return true
		}
	}
	return false
}

func TestNextKeepsOtherKeys(t *testing.T) {
	p := mustNext(t, map[string][]byte{"note": []byte("kept")}, testNames, t0)
	if string(p.Data["note"]) != "kept" {
		t.Errorf("the Secret's other keys were dropped: %v", p.Data)
	}
}

func TestNextNeedsNames(t *testing.T) {
	if _, err := Next(nil, nil, t0, testLifetimes); err == nil {
		t.Error("no error without names")
	}
}

func without(data map[string][]byte, key string) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range data {
		if k != key {
			out[k] = v
		}
	}
	return out
}

func with(data map[string][]byte, key string, value []byte) map[string][]byte {
	out := without(data, key)
	out[key] = value
	return out
}

func equalData(a, b map[string][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// FuzzParse: whatever a Secret holds, Parse does not panic, and Next
// either fails or returns a bundle that parses back unchanged and serves a
// certificate signed by a trusted CA.
func FuzzParse(f *testing.F) {
	valid := mustNextF(f)
	f.Add(valid[KeyCACert], valid[KeyCAKey], valid[KeyCert], valid[KeyKey])
	f.Add([]byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"), []byte{}, []byte{}, []byte{})
	f.Add(valid[KeyCert], valid[KeyKey], valid[KeyCACert], valid[KeyCAKey])
	f.Fuzz(func(t *testing.T, caCert, caKey, tlsCert, tlsKey []byte) {
		data := map[string][]byte{KeyCACert: caCert, KeyCAKey: caKey, KeyCert: tlsCert, KeyKey: tlsKey}
		_, _ = Parse(data)
		p, err := Next(data, testNames, t0, testLifetimes)
		if err != nil {
			return
		}
		if err := verifies(p, testNames[0], t0); err != nil {
			t.Fatalf("the planned serving certificate does not verify: %v", err)
		}
		if again := mustNext(t, p.Data, testNames, t0); again.Changed {
			t.Fatalf("the planned bundle needs another change: %v", again.Reasons)
		}
	})
}

func mustNextF(f *testing.F) map[string][]byte {
	p, err := Next(nil, testNames, t0, testLifetimes)
	if err != nil {
		f.Fatal(err)
	}
	return p.Data
}

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
	"crypto/x509"
	"path/filepath"

	"github.com/windows-aware/windows-aware/internal/pki"
)

// clusterPKI is the certificates and keys of one cluster, written under dir:
// a CA, the API server's serving certificate for 127.0.0.1 and localhost,
// the service-account signing key, and one client certificate per identity.
type clusterPKI struct {
	ca *pki.CA
	// CAFile signs every certificate below; the API server trusts client
	// certificates it signed.
	CAFile string
	// ServingCertFile and ServingKeyFile are the API server's.
	ServingCertFile, ServingKeyFile string
	// SAKeyFile signs service-account tokens (the API server reads the
	// public key from it too).
	SAKeyFile string
}

func newPKI(dir string) (*clusterPKI, error) {
	ca, err := pki.NewCA(dir, "windows-aware-test-ca")
	if err != nil {
		return nil, err
	}
	p := &clusterPKI{ca: ca, CAFile: ca.CertFile}
	p.ServingCertFile, p.ServingKeyFile, err = ca.IssueLoopbackServing("apiserver", "kube-apiserver",
		"kubernetes", "kubernetes.default", "kubernetes.default.svc")
	if err != nil {
		return nil, err
	}
	saKey, err := pki.NewKey()
	if err != nil {
		return nil, err
	}
	p.SAKeyFile = filepath.Join(dir, "sa.key")
	if err := pki.WriteKey(p.SAKeyFile, saKey); err != nil {
		return nil, err
	}
	return p, nil
}

// clientCert issues a client certificate for user in groups and returns its
// PEM files.
func (p *clusterPKI) clientCert(name, user string, groups ...string) (certFile, keyFile string, err error) {
	return p.ca.Issue(pki.Request{Name: name, CommonName: user, Organizations: groups, Usage: x509.ExtKeyUsageClientAuth})
}

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

package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"sync"

	"k8s.io/apiserver/pkg/server/dynamiccertificates"
)

// servingCert is the serving certificate of its files, reloaded by
// k8s.io/apiserver's dynamic certificate content (a file watch, and a
// periodic re-read) when cert-manager or a Secret update rewrites them.
type servingCert struct {
	content *dynamiccertificates.DynamicCertKeyPairContent

	mu              sync.Mutex
	certPEM, keyPEM []byte
	parsed          *tls.Certificate
}

func newServingCert(certFile, keyFile string) (*servingCert, error) {
	content, err := dynamiccertificates.NewDynamicServingContentFromFiles("serving-cert", certFile, keyFile)
	if err != nil {
		return nil, err
	}
	s := &servingCert{content: content}
	if _, err := s.get(nil); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *servingCert) run(ctx context.Context) { s.content.Run(ctx, 1) }

// get is tls.Config.GetCertificate: the files' current pair, parsed once
// per change.
func (s *servingCert) get(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	certPEM, keyPEM := s.content.CurrentCertKeyContent()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.parsed != nil && bytes.Equal(certPEM, s.certPEM) && bytes.Equal(keyPEM, s.keyPEM) {
		return s.parsed, nil
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("serving certificate: %w", err)
	}
	s.certPEM, s.keyPEM, s.parsed = certPEM, keyPEM, &cert
	return s.parsed, nil
}

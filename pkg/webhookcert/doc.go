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

// Package webhookcert lets a webhook manage its own TLS: a CA and a
// serving certificate kept in one Secret, which every replica reads and
// writes by name, and the CA bundle the API server trusts patched into the
// webhook's configuration.
//
// The replicas agree on one CA because the Secret is the only copy: the
// first replica to find it empty (or due for renewal) writes a new bundle
// with the Secret's resourceVersion, and a replica that loses that race
// reads the winner's bundle and serves it. Certificates are renewed at two
// thirds of their life; a new CA joins the trusted bundle months before
// it signs a serving certificate, so the API server already trusts every
// certificate a replica may serve (bundle.go).
//
// The Manager (manager.go) serves the certificate from memory and reloads
// it when the Secret changes. It needs get, list, watch and update on the
// Secret and get and patch on the MutatingWebhookConfiguration, all by
// name.
package webhookcert

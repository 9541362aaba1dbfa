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

package imagefacts

import (
	"testing"

	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
)

// TestPullSecretClient: pull secrets are read on a client of their own,
// built from the framework's rest config, not on the client that binds
// pods; the caller's config is left as it was.
func TestPullSecretClient(t *testing.T) {
	binding := fake.NewClientset()
	cfg := &rest.Config{Host: "https://127.0.0.1:6443", QPS: 50, Burst: 100}
	own, err := PullSecretClient(cfg, binding)
	if err != nil {
		t.Fatal(err)
	}
	if own == nil || own == binding {
		t.Fatalf("pull secrets are read with the binding client")
	}
	if cfg.QPS != 50 || cfg.Burst != 100 || cfg.UserAgent != "" {
		t.Errorf("the framework's rest config was changed: %+v", cfg)
	}
	if fallback, _ := PullSecretClient(nil, binding); fallback != binding {
		t.Errorf("without a rest config, want the framework's client")
	}
}

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

package registrytest

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
)

// ResolvingArgs are the default WindowsAwareArgs with image resolution on,
// from s alone (trusted: its CA, and its loopback address allowed), under
// scope and onFailure, holding pods at most gateTimeout.
func (s *Server) ResolvingArgs(scope, onFailure string, gateTimeout time.Duration) *config.WindowsAwareArgs {
	a := scheme.DefaultArgs()
	a.ImageResolution.Scope = scope
	a.ImageResolution.OnFailure = onFailure
	a.ImageResolution.GateTimeout = metav1.Duration{Duration: gateTimeout}
	a.ImageResolution.Registries = []config.RegistryHost{{Host: s.Host(), AllowPrivate: true, CAFile: s.CAFile()}}
	return a
}

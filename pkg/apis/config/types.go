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

package config

import (
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The values of WindowsAwareArgs.DefaultOS.
const (
	// OSLinux places pods with no OS of their own on Linux nodes.
	OSLinux = "linux"
	// OSWindows places pods with no OS of their own on Windows nodes.
	OSWindows = "windows"
	// OSAny leaves pods with no OS of their own to the other plugins, as the
	// stock scheduler does.
	OSAny = "any"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// WindowsAwareArgs configures the WindowsAware and OSTaintToleration plugins.
type WindowsAwareArgs struct {
	metav1.TypeMeta

	// DefaultOS is the OS of a pod that neither sets .spec.os.name nor has
	// an image whose tag names a Windows release: linux, windows or any.
	DefaultOS string
	// CompatibilityMode decides which host builds run an image build:
	// containerd (the process-isolation rule of containerd and hcsshim) or
	// exact (equal builds only).
	CompatibilityMode string
	// ExtraReleases adds tag tokens for Windows releases that ship after
	// this binary, or re-points a known token.
	ExtraReleases []ReleaseToken
	// OSTaints are the taints a pod tolerates, without a toleration of its
	// own, on a node of the OS the plugin matched it to.
	OSTaints OSTaints
}

// ReleaseToken maps one image tag token to the Windows build it needs.
type ReleaseToken struct {
	// Token as it appears between dashes in a tag, e.g. ltsc2025.
	Token string
	// Build as the node.kubernetes.io/windows-build label spells it, e.g.
	// 10.0.26100.
	Build string
}

// OSTaints describes the taints that keep pods of the other OS off a node.
type OSTaints struct {
	// Tolerate turns the implicit toleration on or off.
	Tolerate bool
	// Keys of the OS taints; their value must equal the node's OS, in any
	// case.
	Keys []string
	// Effects tolerated.
	Effects []v1.TaintEffect
}

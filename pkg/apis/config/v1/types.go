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

package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// WindowsAwareArgs configures the WindowsAware and OSTaintToleration plugins.
type WindowsAwareArgs struct {
	metav1.TypeMeta `json:",inline"`

	// DefaultOS is the OS of a pod that neither sets .spec.os.name nor has
	// an image whose tag names a Windows release: linux, windows or any
	// (keep the stock behaviour). Defaults to linux.
	DefaultOS *string `json:"defaultOS,omitempty"`
	// CompatibilityMode decides which host builds run an image build:
	// containerd (the process-isolation rule of containerd and hcsshim) or
	// exact (equal builds only). Defaults to containerd.
	CompatibilityMode *string `json:"compatibilityMode,omitempty"`
	// ExtraReleases adds tag tokens for Windows releases that ship after
	// this binary, or re-points a known token.
	ExtraReleases []ReleaseToken `json:"extraReleases,omitempty"`
	// OSTaints are the taints a pod tolerates, without a toleration of its
	// own, on a node of the OS the plugin matched it to.
	OSTaints *OSTaints `json:"osTaints,omitempty"`
	// ImageResolution reads the platforms of images whose tag names no
	// Windows build from their registries, in the background. None by
	// default.
	ImageResolution *ImageResolution `json:"imageResolution,omitempty"`
}

// ReleaseToken maps one image tag token to the Windows build it needs.
type ReleaseToken struct {
	// Token as it appears between dashes in a tag, e.g. ltsc2025.
	Token string `json:"token"`
	// Build as the node.kubernetes.io/windows-build label spells it, e.g.
	// 10.0.26100.
	Build string `json:"build"`
}

// OSTaints describes the taints that keep pods of the other OS off a node.
type OSTaints struct {
	// Tolerate turns the implicit toleration on or off. Defaults to true.
	Tolerate *bool `json:"tolerate,omitempty"`
	// Keys of the OS taints; their value must equal the node's OS, in any
	// case. Defaults to [os, node.kubernetes.io/os].
	Keys []string `json:"keys,omitempty"`
	// Effects tolerated. Defaults to [NoSchedule].
	Effects []corev1.TaintEffect `json:"effects,omitempty"`
}

// ImageResolution configures reading image platforms from registries.
type ImageResolution struct {
	// Scope selects the pods whose images are resolved: None (never ask a
	// registry), Windows (Windows pods whose image tags name no build) or
	// Undeclared (those, and pods that declare no OS). Defaults to None.
	Scope *string `json:"scope,omitempty"`
	// Registries allowlists the registries that may be asked; required
	// unless Scope is None. Images of other registries keep the tag rules.
	Registries []RegistryHost `json:"registries,omitempty"`
	// GateTimeout is the longest a pod waits for its images to resolve
	// before OnFailure applies; 0 never holds pods. Defaults to 10s.
	GateTimeout *metav1.Duration `json:"gateTimeout,omitempty"`
	// OnFailure is what happens to a pod whose images could not be
	// resolved in time: TagRules (place it by the tag rules) or Reject
	// (keep it unschedulable, naming the image and the error, until
	// resolution succeeds). Defaults to TagRules.
	OnFailure *string `json:"onFailure,omitempty"`
	// Credentials for private registries. Anonymous by default.
	Credentials ImageCredentials `json:"credentials,omitempty"`
	// Cache bounds and lifetimes.
	Cache ImageCache `json:"cache,omitempty"`
	// Concurrency of the background resolution.
	Concurrency ImageConcurrency `json:"concurrency,omitempty"`
	// RequestTimeout bounds each registry request. Defaults to 10s.
	RequestTimeout *metav1.Duration `json:"requestTimeout,omitempty"`
	// MaxIndexEntries bounds the entries of an image index (nested indexes
	// counted together): an image with more is refused as invalid.
	// Defaults to 256; at most 10000.
	MaxIndexEntries *int32 `json:"maxIndexEntries,omitempty"`
}

// RegistryHost allowlists one registry host pattern and says how to reach
// it.
type RegistryHost struct {
	// Host as image references name it: "mcr.microsoft.com",
	// "*.azurecr.io", "registry.local:5000", or "*" for any registry. A
	// pattern without a port matches only references without one.
	Host string `json:"host"`
	// Endpoints are mirrors asked instead of Host, in order, as
	// containerd's hosts.toml lists them: "mirror.local:5000",
	// "https://mirror.local", "http://10.0.0.5:5000" (with insecure). List
	// the registry itself last to fall back to it.
	Endpoints []string `json:"endpoints,omitempty"`
	// Insecure allows plain HTTP to the registry's endpoints.
	Insecure bool `json:"insecure,omitempty"`
	// AllowPrivate lets the registry's endpoints resolve to loopback,
	// private or link-local addresses, which are refused otherwise.
	AllowPrivate bool `json:"allowPrivate,omitempty"`
	// CAFile is a PEM bundle trusted for the registry, besides the system
	// roots.
	CAFile string `json:"caFile,omitempty"`
}

// ImageCredentials says which credentials the resolver may use.
type ImageCredentials struct {
	// DockerConfigFile is a docker config.json with registry credentials,
	// e.g. a mounted kubernetes.io/dockerconfigjson Secret.
	DockerConfigFile string `json:"dockerConfigFile,omitempty"`
	// PodPullSecrets lets the resolver read, by name, the Secrets a pod
	// lists in spec.imagePullSecrets, in the pod's namespace; the
	// scheduler then needs "get secrets" there. Defaults to false.
	PodPullSecrets *bool `json:"podPullSecrets,omitempty"`
}

// ImageCache bounds the resolver's cache.
type ImageCache struct {
	// MaxEntries bounds the cached tags, digests and failures together.
	// Defaults to 20000.
	MaxEntries *int32 `json:"maxEntries,omitempty"`
	// TagTTL is how long a tag's facts are fresh before the tag is asked
	// again (a HEAD). Digests never expire. Defaults to 10m.
	TagTTL *metav1.Duration `json:"tagTTL,omitempty"`
	// NegativeTTL is how long a failure stands before the same
	// credentials are tried again. Defaults to 1m.
	NegativeTTL *metav1.Duration `json:"negativeTTL,omitempty"`
}

// ImageConcurrency bounds the background resolution.
type ImageConcurrency struct {
	// Workers resolve images concurrently. Defaults to 8.
	Workers *int32 `json:"workers,omitempty"`
	// PerRegistry bounds concurrent resolutions against one registry
	// host. Defaults to 4.
	PerRegistry *int32 `json:"perRegistry,omitempty"`
}

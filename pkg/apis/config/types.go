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

// PluginName is the name of the WindowsAware plugin, under which a
// KubeSchedulerConfiguration enables it and gives its args.
const PluginName = "WindowsAware"

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
	// ImageResolution reads the platforms of images whose tag names no
	// Windows build from their registries, in the background.
	ImageResolution ImageResolution
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

// The values of ImageResolution.Scope.
const (
	// ResolutionNone never asks a registry: the tag rules alone decide.
	ResolutionNone = "None"
	// ResolutionWindows resolves the images of Windows pods whose tags
	// name no build.
	ResolutionWindows = "Windows"
	// ResolutionUndeclared also resolves the images of pods that declare
	// no OS.
	ResolutionUndeclared = "Undeclared"
)

// The values of ImageResolution.OnFailure.
const (
	// OnFailureTagRules places a pod by the tag rules when its images
	// could not be resolved in time.
	OnFailureTagRules = "TagRules"
	// OnFailureReject keeps such a pod unschedulable, with a message that
	// names the image and the registry error, until resolution succeeds.
	OnFailureReject = "Reject"
)

// ImageResolution configures reading image platforms from registries.
type ImageResolution struct {
	// Scope selects the pods whose images are resolved: None, Windows or
	// Undeclared.
	Scope string
	// Registries allowlists the registries that may be asked.
	Registries []RegistryHost
	// GateTimeout is the longest a pod waits for its images to resolve
	// before OnFailure applies; 0 never holds pods.
	GateTimeout metav1.Duration
	// OnFailure is TagRules or Reject.
	OnFailure string
	// Credentials for private registries.
	Credentials ImageCredentials
	// Cache bounds and lifetimes.
	Cache ImageCache
	// Concurrency of the background resolution.
	Concurrency ImageConcurrency
	// RequestTimeout bounds each registry request.
	RequestTimeout metav1.Duration
	// MaxIndexEntries bounds the entries of an image index, nested indexes
	// counted together.
	MaxIndexEntries int32
}

// RegistryHost allowlists one registry host pattern and says how to reach
// it.
type RegistryHost struct {
	// Host as image references name it: "mcr.microsoft.com",
	// "*.azurecr.io", "registry.local:5000", or "*" for any.
	Host string
	// Endpoints are mirrors asked instead of Host, in order, as
	// containerd's hosts.toml lists them: "https://mirror.local:5000",
	// "http://…" with Insecure.
	Endpoints []string
	// Insecure allows plain HTTP to the registry's endpoints.
	Insecure bool
	// AllowPrivate lets the registry's endpoints resolve to loopback,
	// private or link-local addresses.
	AllowPrivate bool
	// CAFile is a PEM bundle trusted for the registry, besides the system
	// roots.
	CAFile string
}

// ImageCredentials says which credentials the resolver may use.
type ImageCredentials struct {
	// DockerConfigFile is a docker config.json (e.g. a mounted Secret).
	DockerConfigFile string
	// PodPullSecrets lets the resolver read the Secrets a pod names in
	// spec.imagePullSecrets; the scheduler then needs "get secrets" in
	// those namespaces.
	PodPullSecrets bool
}

// ImageCache bounds the resolver's cache.
type ImageCache struct {
	// MaxEntries bounds the cached tags, digests and failures together.
	MaxEntries int32
	// TagTTL is how long a tag's facts are fresh.
	TagTTL metav1.Duration
	// NegativeTTL is how long a failure stands before a retry.
	NegativeTTL metav1.Duration
}

// ImageConcurrency bounds the background resolution.
type ImageConcurrency struct {
	// Workers resolve images concurrently.
	Workers int32
	// PerRegistry bounds concurrent resolutions against one registry host.
	PerRegistry int32
}

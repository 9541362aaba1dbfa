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

// Package imageinspect reads the platforms of container images (os,
// architecture and, for Windows, os.version) from their registries, in the
// background, so that the scheduler can place a pod whose image tags name
// no Windows build. It imports nothing of the scheduler framework.
//
// # Data flow
//
// Every cache entry belongs to a credential scope: "" (shared) for facts
// obtained anonymously or with the static docker config file, or one
// pod's pull-secret set (its namespace and sorted secret names). The
// plugin calls Lookup(ref, pullSecrets) from PreEnqueue: a read lock and
// one or two map lookups (the pod's own scope, then the shared one), no
// I/O, and no allocation for a pod without pull secrets. On a miss it
// calls Want(ref, waiter, pullSecrets), which registers the waiter and
// queues the entry of the pod's scope on a queue that takes namespaces in
// turn (fairqueue.go); it never blocks. Workers (Config.Workers, at most
// Config.PerRegistry per registry host; a run whose host is full is
// parked, and freed slots are handed out a namespace at a time) then, for
// each entry, one run at a time, with that scope's credentials only:
//
//  1. HEAD the tag for its digest (a digest reference skips this; a digest
//     whose facts are cached needs nothing more);
//  2. GET the manifest by digest: an index (OCI) or manifest list (Docker)
//     is parsed here, entry by entry, skipping attestation entries
//     (unknown/unknown, vnd.docker.reference.type) and following nested
//     indexes; the registry client's own platform matching is never used,
//     because it compares os.version as strings;
//  3. GET the config blob only where the os.version is missing: for a
//     single image, or an entry without os.version or platform;
//
// and stores the result in the scope of the credential that obtained it
// (a pull secret's facts in its scope, anonymous or static ones in the
// shared scope), under the tag and under repo@digest alike: the facts of
// a digest for ever (bounded by Config.MaxEntries, second-chance
// eviction, and at most 16 pull-secret scopes per image), those of a tag
// for Config.TagTTL (then served stale while a HEAD refreshes them), and
// failures for Config.NegativeTTL in the scope that failed, so that a pod
// bringing other pull secrets runs at once, with its own. Only after the
// result is stored does OnResolved receive the waiters, which the plugin
// wakes with Handle.Activate. A registry that is unavailable or answers
// 429 is retried automatically with per-image exponential backoff, never
// before its Retry-After; the registry client's own retries are off.
//
// Every failure carries an ErrorClass (Unauthorized, NotFound,
// RateLimited, Unavailable, Invalid, Refused) and an *Error whose message
// names the image and the registry host, never a credential or a response
// body; the plugin picks its fallback (tag rules, or a visible rejection)
// and its Event from them.
//
// # Safety model
//
// Image references are written by whoever creates pods, so the resolver
// treats them as untrusted:
//
//   - Only allowlisted registries are asked (Config.Registries: exact
//     hosts, *.domain, or an explicit "*"); any other image fails at once
//     with ClassRefused and keeps the tag rules.
//   - Every connection, including token realms and redirects (blob CDNs),
//     is dialled through a guard that checks the address actually dialled,
//     after DNS: loopback, private, link-local, shared (100.64/10),
//     multicast and unspecified addresses are refused unless the host is a
//     registry or mirror endpoint listed with AllowPrivate. IP literals are
//     refused before any dial. No proxy from the environment is used.
//   - TLS is verified (system roots plus an optional CA per registry);
//     plain HTTP only to registries listed as Insecure.
//   - Manifests are capped at 4 MiB and configs at 8 MiB; each request has
//     a timeout; nested indexes and child reads are bounded.
//   - Mirrors are configured per registry, as containerd's hosts.toml does,
//     so air-gapped clusters resolve through them.
//   - Credentials: anonymous by default; a docker config.json file; and,
//     only when enabled, the Secrets a pod names in spec.imagePullSecrets,
//     read one by one by name in the pod's namespace (never through an
//     informer) and matched with the kubelet's own keyring, trying each
//     matching credential in turn as the kubelet does. Credentials are
//     never logged nor put in errors. Secret reads go through a client of
//     their own (its own QPS), are shared by concurrent readers of one
//     Secret, cached a minute (at most 1024 Secrets, 16 MiB, only their
//     dockerconfig keys), and at most 4 are under way at once.
//
// Facts are keyed by who may see them. Facts obtained anonymously, or
// with the static docker config file (the administrator's credential for
// the cluster, as a node's credentials are), are shared: every pod sees
// them. Facts obtained with a pod's pull secret are seen only by pods of
// the same namespace naming the same secrets, under the tag and under the
// digest; any other pod is resolved with its own credentials (and fails
// as unauthorized without good ones). A run never uses one pod's
// credentials on behalf of another.
//
// Metrics (windows_aware_ prefix, on the scheduler's /metrics):
// image_resolutions_total{result}, image_resolution_duration_seconds
// {result}, image_cache_lookups_total{result}, image_cache_entries{kind},
// registry_requests_total{method,code}.
package imageinspect

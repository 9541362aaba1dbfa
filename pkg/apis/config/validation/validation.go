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

// Package validation checks windows-aware plugin args, so that a bad value
// stops the scheduler at start with an error that names the field.
package validation

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	v1 "k8s.io/api/core/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/registryhost"
	"github.com/windows-aware/windows-aware/pkg/windows"
)

var (
	validDefaultOS         = []string{config.OSLinux, config.OSWindows, config.OSAny}
	validCompatibilityMode = []string{string(windows.ModeContainerd), string(windows.ModeExact)}
	// PreferNoSchedule is left out: it only weighs in TaintToleration's
	// score, which these plugins do not replace. NoExecute is left out
	// too: the kubelet's taint manager evicts a pod from a node whose
	// NoExecute taint the pod does not tolerate in its own spec, so a pod
	// placed there because the scheduler tolerated the taint on its behalf
	// would be evicted, recreated and placed there again.
	validOSTaintEffects = []string{string(v1.TaintEffectNoSchedule)}
	validScopes         = []string{config.ResolutionNone, config.ResolutionWindows, config.ResolutionUndeclared}
	validOnFailure      = []string{config.OnFailureTagRules, config.OnFailureReject}
)

// ValidateWindowsAwareArgs returns every problem of args, each with the path
// of its field under path, or nil.
func ValidateWindowsAwareArgs(path *field.Path, args *config.WindowsAwareArgs) error {
	var errs field.ErrorList
	if !sets.New(validDefaultOS...).Has(args.DefaultOS) {
		errs = append(errs, field.NotSupported(path.Child("defaultOS"), args.DefaultOS, validDefaultOS))
	}
	if _, err := windows.ParseMode(args.CompatibilityMode); err != nil {
		errs = append(errs, field.NotSupported(path.Child("compatibilityMode"), args.CompatibilityMode, validCompatibilityMode))
	}
	errs = append(errs, validateExtraReleases(path.Child("extraReleases"), args.ExtraReleases)...)
	errs = append(errs, validateOSTaints(path.Child("osTaints"), &args.OSTaints)...)
	errs = append(errs, validateImageResolution(path.Child("imageResolution"), &args.ImageResolution)...)
	return errs.ToAggregate()
}

func validateExtraReleases(path *field.Path, releases []config.ReleaseToken) field.ErrorList {
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, r := range releases {
		p := path.Index(i)
		if err := windows.ValidateToken(r.Token); err != nil {
			errs = append(errs, field.Invalid(p.Child("token"), r.Token, err.Error()))
		} else if key := windows.TokenKey(r.Token); seen.Has(key) {
			errs = append(errs, field.Duplicate(p.Child("token"), r.Token))
		} else {
			seen.Insert(key)
		}
		if _, ok := windows.ParseBuild(r.Build); !ok {
			errs = append(errs, field.Invalid(p.Child("build"), r.Build, "must be Major.Minor.Build, e.g. 10.0.26100"))
		}
	}
	return errs
}

func validateOSTaints(path *field.Path, t *config.OSTaints) field.ErrorList {
	var errs field.ErrorList
	if !t.Tolerate {
		return nil
	}
	if len(t.Keys) == 0 {
		errs = append(errs, field.Required(path.Child("keys"), "at least one taint key when tolerate is true"))
	}
	for i, k := range t.Keys {
		errs = append(errs, metav1validation.ValidateLabelName(k, path.Child("keys").Index(i))...)
	}
	if len(t.Effects) == 0 {
		errs = append(errs, field.Required(path.Child("effects"), "at least one taint effect when tolerate is true"))
	}
	for i, e := range t.Effects {
		if e == v1.TaintEffectNoExecute {
			errs = append(errs, field.Invalid(path.Child("effects").Index(i), e,
				"NoExecute cannot be tolerated by the scheduler: the kubelet evicts pods that do not tolerate a NoExecute taint "+
					"in their own spec, so pods placed past it would be evicted and rescheduled in a loop; tolerate it in the pod spec instead"))
			continue
		}
		if !sets.New(validOSTaintEffects...).Has(string(e)) {
			errs = append(errs, field.NotSupported(path.Child("effects").Index(i), e, validOSTaintEffects))
		}
	}
	return errs
}

// validateImageResolution checks the resolution settings. With scope None
// (or unset, in args built by hand) nothing else is read, so nothing else
// is checked.
func validateImageResolution(path *field.Path, r *config.ImageResolution) field.ErrorList {
	if r.Scope == "" || r.Scope == config.ResolutionNone {
		return nil
	}
	var errs field.ErrorList
	if !sets.New(validScopes...).Has(r.Scope) {
		errs = append(errs, field.NotSupported(path.Child("scope"), r.Scope, validScopes))
	}
	if !sets.New(validOnFailure...).Has(r.OnFailure) {
		errs = append(errs, field.NotSupported(path.Child("onFailure"), r.OnFailure, validOnFailure))
	}
	if len(r.Registries) == 0 {
		errs = append(errs, field.Required(path.Child("registries"), "at least one registry when scope is not None: resolution never asks a registry that is not listed"))
	}
	hosts := sets.New[string]()
	for i, reg := range r.Registries {
		p := path.Child("registries").Index(i)
		if err := registryhost.ValidatePattern(reg.Host); err != nil {
			errs = append(errs, field.Invalid(p.Child("host"), reg.Host, err.Error()))
		} else if hosts.Has(strings.ToLower(reg.Host)) {
			errs = append(errs, field.Duplicate(p.Child("host"), reg.Host))
		} else {
			hosts.Insert(strings.ToLower(reg.Host))
		}
		for j, e := range reg.Endpoints {
			if ep, err := registryhost.ParseEndpoint(e); err != nil {
				errs = append(errs, field.Invalid(p.Child("endpoints").Index(j), e, err.Error()))
			} else if ep.Insecure && !reg.Insecure {
				errs = append(errs, field.Invalid(p.Child("endpoints").Index(j), e, "plain HTTP needs insecure: true"))
			}
		}
		if reg.CAFile != "" && !filepath.IsAbs(reg.CAFile) {
			errs = append(errs, field.Invalid(p.Child("caFile"), reg.CAFile, "must be an absolute path"))
		}
	}
	if r.GateTimeout.Duration < 0 {
		errs = append(errs, field.Invalid(path.Child("gateTimeout"), r.GateTimeout.Duration.String(), "must be 0 (never hold pods) or more"))
	}
	if r.OnFailure == config.OnFailureReject && r.GateTimeout.Duration == 0 {
		errs = append(errs, field.Invalid(path.Child("gateTimeout"), r.GateTimeout.Duration.String(), "must be more than 0 with onFailure Reject"))
	}
	if f := r.Credentials.DockerConfigFile; f != "" && !filepath.IsAbs(f) {
		errs = append(errs, field.Invalid(path.Child("credentials", "dockerConfigFile"), f, "must be an absolute path"))
	}
	for _, d := range []struct {
		name  *field.Path
		value time.Duration
	}{
		{path.Child("cache", "tagTTL"), r.Cache.TagTTL.Duration},
		{path.Child("cache", "negativeTTL"), r.Cache.NegativeTTL.Duration},
		{path.Child("requestTimeout"), r.RequestTimeout.Duration},
	} {
		if d.value <= 0 {
			errs = append(errs, field.Invalid(d.name, d.value.String(), "must be more than 0"))
		}
	}
	for _, n := range []struct {
		name  *field.Path
		value int32
	}{
		{path.Child("cache", "maxEntries"), r.Cache.MaxEntries},
		{path.Child("concurrency", "workers"), r.Concurrency.Workers},
		{path.Child("concurrency", "perRegistry"), r.Concurrency.PerRegistry},
	} {
		if n.value <= 0 {
			errs = append(errs, field.Invalid(n.name, n.value, "must be more than 0"))
		}
	}
	if n := r.MaxIndexEntries; n < 1 || n > MaxIndexEntriesLimit {
		errs = append(errs, field.Invalid(path.Child("maxIndexEntries"), n, fmt.Sprintf("must be from 1 to %d", MaxIndexEntriesLimit)))
	}
	return errs
}

// MaxIndexEntriesLimit is the most imageResolution.maxIndexEntries may
// allow: a hundred times the largest real multi-platform list, and few
// enough that the decisions over an image's entries stay cheap.
const MaxIndexEntriesLimit = 10000

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

	v1 "k8s.io/api/core/v1"
	st "k8s.io/kubernetes/pkg/scheduler/testing"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	"github.com/windows-aware/windows-aware/pkg/apis/config/scheme"
	"github.com/windows-aware/windows-aware/pkg/podneeds"
)

const (
	imgLinux    = "nginx:1.27"
	imgNano     = "golang:1.22-nanoserver" // Windows, no build
	img2019     = "mcr.microsoft.com/windows/servercore:ltsc2019"
	img2022     = "mcr.microsoft.com/windows/nanoserver:ltsc2022"
	imgWinNoTag = "mcr.microsoft.com/dotnet/framework/aspnet:4.8" // a manifest list: no build

	// The os.version of Windows images the test registry serves.
	osv2019 = "10.0.17763.5329"
	osv2022 = "10.0.20348.2227"
)

func pod(images ...string) *st.PodWrapper {
	p := st.MakePod().Name("p").Namespace("default").UID("p")
	for _, img := range images {
		p = p.Container(img)
	}
	return p
}

func withOS(p *st.PodWrapper, os v1.OSName) *v1.Pod {
	obj := p.Obj()
	obj.Spec.OS = &v1.PodOS{Name: os}
	return obj
}

// defaultArgs are the args a configuration that leaves them out gets, as
// mutate changes them.
func defaultArgs(mutate ...func(*config.WindowsAwareArgs)) *config.WindowsAwareArgs {
	a := scheme.DefaultArgs()
	for _, m := range mutate {
		m(a)
	}
	return a
}

func decider(t *testing.T, args *config.WindowsAwareArgs) *podneeds.Decider {
	t.Helper()
	dr, err := podneeds.New(args)
	if err != nil {
		t.Fatal(err)
	}
	return dr
}

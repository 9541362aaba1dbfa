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

package scheme

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
	schedconfig "k8s.io/kubernetes/pkg/scheduler/apis/config"
	kubeschedulerscheme "k8s.io/kubernetes/pkg/scheduler/apis/config/scheme"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	configv1 "github.com/windows-aware/windows-aware/pkg/apis/config/v1"
	"github.com/windows-aware/windows-aware/pkg/apis/config/validation"
)

// configPrefix is a KubeSchedulerConfiguration whose last line opens the
// WindowsAware args; argsIndent nests every line of the args under it.
const (
	configPrefix = `apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
  - schedulerName: windows-aware
    pluginConfig:
      - name: WindowsAware
        args:
`
	argsIndent = "          "
)

// decodeArgs decodes args, YAML or JSON, as the WindowsAware pluginConfig
// args of a configuration file, the way the scheduler reads its --config:
// the scheme's strict universal decoder, which decodes the nested args,
// defaults them and converts them to the internal type. It returns nil
// args, and no error, for a document that leaves the args out.
func decodeArgs(args []byte) (*config.WindowsAwareArgs, error) {
	var doc bytes.Buffer
	doc.WriteString(configPrefix)
	for _, line := range bytes.Split(args, []byte("\n")) {
		doc.WriteString(argsIndent)
		doc.Write(line)
		doc.WriteByte('\n')
	}
	obj, _, err := kubeschedulerscheme.Codecs.UniversalDecoder().Decode(doc.Bytes(), nil, nil)
	if err != nil {
		return nil, err
	}
	cfg, ok := obj.(*schedconfig.KubeSchedulerConfiguration)
	if !ok {
		return nil, nil
	}
	for _, p := range cfg.Profiles {
		for _, pc := range p.PluginConfig {
			if pc.Name == "WindowsAware" {
				a, _ := pc.Args.(*config.WindowsAwareArgs)
				return a, nil
			}
		}
	}
	return nil, nil
}

// encodeArgs writes args as the JSON a configuration file would hold.
func encodeArgs(args *config.WindowsAwareArgs) ([]byte, error) {
	var out configv1.WindowsAwareArgs
	if err := Scheme.Convert(args, &out, nil); err != nil {
		return nil, err
	}
	return json.Marshal(&out)
}

// meaning is args with what the plugins ignore cleared: the keys and
// effects of OS taints that are not tolerated.
func meaning(args *config.WindowsAwareArgs) *config.WindowsAwareArgs {
	m := args.DeepCopy()
	m.TypeMeta = args.TypeMeta
	if !m.OSTaints.Tolerate {
		m.OSTaints.Keys, m.OSTaints.Effects = nil, nil
	}
	return m
}

// TestDecodeArgs: the harness of FuzzDecodeWindowsAwareArgs reads args as
// the scheduler does, defaults and strictness included.
func TestDecodeArgs(t *testing.T) {
	// The defaults as the scheme gives them to args left out entirely.
	defaults := func() *config.WindowsAwareArgs {
		versioned := &configv1.WindowsAwareArgs{}
		Scheme.Default(versioned)
		internal := &config.WindowsAwareArgs{}
		if err := Scheme.Convert(versioned, internal, nil); err != nil {
			t.Fatal(err)
		}
		return internal
	}
	tests := []struct {
		name    string
		args    string
		want    func(*config.WindowsAwareArgs)
		wantErr bool
	}{
		{name: "empty", args: "", want: func(*config.WindowsAwareArgs) {}},
		{name: "YAML", args: "defaultOS: windows\nextraReleases:\n  - {token: \"2404\", build: 10.0.27000}", want: func(a *config.WindowsAwareArgs) {
			a.DefaultOS = config.OSWindows
			a.ExtraReleases = []config.ReleaseToken{{Token: "2404", Build: "10.0.27000"}}
		}},
		{name: "JSON", args: `{"compatibilityMode":"exact","osTaints":{"tolerate":false}}`, want: func(a *config.WindowsAwareArgs) {
			a.CompatibilityMode = "exact"
			a.OSTaints.Tolerate = false
		}},
		{name: "unknown field", args: "defaultOs: linux", wantErr: true},
		{name: "duplicate field", args: "defaultOS: linux\ndefaultOS: windows", wantErr: true},
		{name: "unquoted number token", args: "extraReleases: [{token: 2404, build: 10.0.27000}]", wantErr: true},
		{name: "not an object", args: "[]", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeArgs([]byte(tt.args))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("decodeArgs(%q) = %+v, want an error", tt.args, got)
				}
				return
			}
			if err != nil || got == nil {
				t.Fatalf("decodeArgs(%q) = %v, %v", tt.args, got, err)
			}
			want := defaults()
			tt.want(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("decodeArgs(%q) (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

// FuzzDecodeWindowsAwareArgs decodes arbitrary bytes as the WindowsAware
// args of a configuration file, then validates them. No input may panic;
// args that validate must survive being written out and read back: valid
// again, and with the same meaning.
func FuzzDecodeWindowsAwareArgs(f *testing.F) {
	for _, seed := range []string{
		"",
		"{}",
		"null",
		"[]",
		"defaultOS: windows",
		"defaultOS: any\ncompatibilityMode: exact",
		"compatibilityMode: hyperv",
		"defaultOs: linux",
		"extraReleases:\n  - token: ltsc2028\n    build: 10.0.30000\n  - token: \"2404\"\n    build: 10.0.27000",
		"extraReleases: [{token: 2404, build: 10.0.27000}]",
		"extraReleases: [{token: ltsc-2028, build: ten}]",
		"extraReleases: [{token: x1, build: 10.0.1}, {token: X1, build: 10.0.2}]",
		"osTaints: {tolerate: false}",
		"osTaints: {tolerate: false, keys: [], effects: []}",
		"osTaints:\n  keys: [os, node.kubernetes.io/os, sku]\n  effects: [NoSchedule, NoExecute]",
		"osTaints: {keys: [\"not a key!\"], effects: [Sometimes]}",
		`{"defaultOS":"linux","compatibilityMode":"containerd","extraReleases":[],"osTaints":{"tolerate":true,"keys":["os"],"effects":["NoSchedule"]}}`,
		`{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"WindowsAwareArgs","defaultOS":"windows"}`,
		"apiVersion: v2\nkind: Other",
		"defaultOS: [linux]",
		"defaultOS: linux\ndefaultOS: windows",
		"&a [*a]",
		"osTaints: {tolerate: yes}",
		"\t- x",
	} {
		f.Add([]byte(seed))
	}
	path := field.NewPath("args")
	f.Fuzz(func(t *testing.T, data []byte) {
		args, err := decodeArgs(data)
		if err != nil || args == nil {
			return
		}
		if validation.ValidateWindowsAwareArgs(path, args) != nil {
			return
		}
		written, err := encodeArgs(args)
		if err != nil {
			t.Fatalf("valid args %+v do not encode: %v", args, err)
		}
		again, err := decodeArgs(written)
		if err != nil || again == nil {
			t.Fatalf("valid args %+v, written as %s, do not decode: %v", args, written, err)
		}
		if err := validation.ValidateWindowsAwareArgs(path, again); err != nil {
			t.Fatalf("valid args %+v, written as %s, no longer validate: %v", args, written, err)
		}
		if want, got := meaning(args), meaning(again); !apiequality.Semantic.DeepEqual(want, got) {
			t.Fatalf("args written as %s read back with another meaning (-want +got):\n%s", written, cmp.Diff(want, got))
		}
	})
}

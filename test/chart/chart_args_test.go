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

package chart

import (
	"encoding/json"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/windows-aware/windows-aware/pkg/apis/config"
	configv1 "github.com/windows-aware/windows-aware/pkg/apis/config/v1"
)

// jsonSchema is the part of JSON Schema that values.schema.json uses for
// the plugin args.
type jsonSchema struct {
	Ref                  string                 `json:"$ref"`
	Type                 string                 `json:"type"`
	Enum                 []any                  `json:"enum"`
	Properties           map[string]*jsonSchema `json:"properties"`
	Items                *jsonSchema            `json:"items"`
	AdditionalProperties json.RawMessage        `json:"additionalProperties"`
	Required             []string               `json:"required"`
	Defs                 map[string]*jsonSchema `json:"$defs"`
}

func loadValuesSchema(t *testing.T) *jsonSchema {
	t.Helper()
	data, err := os.ReadFile(chartDir + "/values.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s jsonSchema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}

// TestChartSchemaFollowsArgs: the schema of pluginArgs has exactly the
// fields of WindowsAwareArgs (v1), at every level, closed to others, so
// that a field added to the args cannot be forgotten in the chart.
func TestChartSchemaFollowsArgs(t *testing.T) {
	root := loadValuesSchema(t)
	var walk func(path string, typ reflect.Type, s *jsonSchema)
	walk = func(path string, typ reflect.Type, s *jsonSchema) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
			typ = typ.Elem()
			if s.Items != nil {
				s = s.Items
			}
		}
		// A struct that decodes itself (metav1.Duration, a string) has no
		// fields in the schema.
		if typ.Kind() != reflect.Struct || reflect.PointerTo(typ).Implements(reflect.TypeFor[json.Unmarshaler]()) {
			return
		}
		if string(s.AdditionalProperties) != "false" {
			t.Errorf("%s: the schema allows fields the args do not have", path)
		}
		want := map[string]reflect.Type{}
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" { // the inline TypeMeta
				continue
			}
			want[name] = f.Type
		}
		var wantNames, gotNames []string
		for n := range want {
			wantNames = append(wantNames, n)
		}
		for n := range s.Properties {
			gotNames = append(gotNames, n)
		}
		sort.Strings(wantNames)
		sort.Strings(gotNames)
		if diff := cmp.Diff(wantNames, gotNames); diff != "" {
			t.Errorf("%s: fields (-args +schema):\n%s", path, diff)
		}
		for n, ft := range want {
			if ps := s.Properties[n]; ps != nil {
				walk(path+"."+n, ft, ps)
			}
		}
	}
	walk("pluginArgs", reflect.TypeFor[configv1.WindowsAwareArgs](), root.Properties["pluginArgs"])
}

// TestChartSchemaEnumsAreTheSchedulers: every value the schema's enums let
// through is one the scheduler accepts. (TestChartRejectsBadValues holds
// the other direction for the values the scheduler refuses.)
func TestChartSchemaEnumsAreTheSchedulers(t *testing.T) {
	args := loadValuesSchema(t).Properties["pluginArgs"].Properties
	for _, tc := range []struct {
		field string
		enum  []any
		edit  func(value string) [2]string
	}{
		{field: "defaultOS", enum: args["defaultOS"].Enum, edit: func(v string) [2]string { return [2]string{"defaultOS: linux", "defaultOS: " + v} }},
		{field: "compatibilityMode", enum: args["compatibilityMode"].Enum, edit: func(v string) [2]string {
			return [2]string{"compatibilityMode: containerd", "compatibilityMode: " + v}
		}},
		{field: "osTaints.effects", enum: args["osTaints"].Properties["effects"].Items.Enum, edit: func(v string) [2]string {
			return [2]string{`effects: ["NoSchedule"]`, "effects: [" + v + "]"}
		}},
		{field: "imageResolution.scope", enum: args["imageResolution"].Properties["scope"].Enum, edit: func(v string) [2]string {
			return [2]string{"extraReleases: []", "extraReleases: []\n          imageResolution: {scope: \"" + v + "\", registries: [{host: mcr.microsoft.com}]}"}
		}},
		{field: "imageResolution.onFailure", enum: args["imageResolution"].Properties["onFailure"].Enum, edit: func(v string) [2]string {
			return [2]string{"extraReleases: []", "extraReleases: []\n          imageResolution: {scope: Windows, onFailure: " + v + ", registries: [{host: mcr.microsoft.com}]}"}
		}},
	} {
		if len(tc.enum) == 0 {
			t.Errorf("%s: the schema has no enum", tc.field)
		}
		for _, v := range tc.enum {
			t.Run(tc.field+"="+v.(string), func(t *testing.T) {
				if _, _, err := setup(t, shipped(t, besideConfig, tc.edit(v.(string)))); err != nil {
					t.Errorf("the schema allows %s=%v, the scheduler refuses it: %v", tc.field, v, err)
				}
			})
		}
	}
}

// TestChartDefaultArgsAreTheSchedulers: the args in values.yaml are the
// scheduler's own defaults, spelt out.
func TestChartDefaultArgsAreTheSchedulers(t *testing.T) {
	data, err := os.ReadFile(chartDir + "/values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var values struct {
		PluginArgs json.RawMessage `json:"pluginArgs"`
	}
	if err := utilyaml.Unmarshal(data, &values); err != nil {
		t.Fatal(err)
	}
	var got configv1.WindowsAwareArgs
	if err := unmarshalStrict(values.PluginArgs, &got); err != nil {
		t.Fatalf("values.yaml pluginArgs: %v", err)
	}
	var want configv1.WindowsAwareArgs
	configv1.SetDefaults_WindowsAwareArgs(&want)
	if diff := cmp.Diff(want, got, cmpIgnoreTypeMeta); diff != "" {
		t.Errorf("values.yaml pluginArgs (-scheduler defaults +values):\n%s", diff)
	}
}

// TestChartConfigRunsTheScheduler: the configuration the chart renders from
// values other than the defaults starts the scheduler, with the profile
// and args the values say.
func TestChartConfigRunsTheScheduler(t *testing.T) {
	chart := renderChart(t, besideNamespace, `
schedulerName: win-sched
scoreWeight: 7
pluginArgs:
  defaultOS: any
  compatibilityMode: exact
  extraReleases: [{token: ltsc2028, build: 10.0.30000}]
  osTaints: {tolerate: true, keys: [os, sku], effects: [NoSchedule]}
leaderElection: {leaseDuration: 30s, renewDeadline: 20s, retryPeriod: 4s}
clientConnection: {qps: 120.5, burst: 240}
`)
	cm := get[*v1.ConfigMap](t, chart, "ConfigMap", besideNamespace, besideRelease+"-config")
	// shipped points clientConnection.kubeconfig at a test kubeconfig: a
	// line of its own to replace, in the chart's clientConnection.
	text := cm.Data["scheduler-config.yaml"]
	if !strings.Contains(text, "\nclientConnection:\n") {
		t.Fatalf("no clientConnection in the configuration:\n%s", text)
	}
	text = strings.Replace(text, "\nclientConnection:\n", "\nclientConnection:\n  kubeconfig: set-by-shipped\n", 1)
	profiles, cfg, err := setup(t, shipped(t, writeTemp(t, text)))
	if err != nil {
		t.Fatalf("the scheduler refuses the chart's configuration: %v", err)
	}
	wa, ok := profiles["win-sched"]
	if !ok || len(profiles) != 1 {
		t.Fatalf("profiles %v, want win-sched alone", profiles)
	}
	if w := weight(&wa.Score, "WindowsAware"); w != 7 {
		t.Errorf("WindowsAware weight %d, want 7", w)
	}
	if le := cfg.LeaderElection; le.LeaseDuration.Seconds() != 30 || le.RenewDeadline.Seconds() != 20 || le.RetryPeriod.Seconds() != 4 {
		t.Errorf("leader election timings %+v", le)
	}
	if cc := cfg.ClientConnection; cc.QPS != 120.5 || cc.Burst != 240 {
		t.Errorf("client connection qps %v, burst %d; want 120.5 and 240", cc.QPS, cc.Burst)
	}
	want := &config.WindowsAwareArgs{
		DefaultOS: "any", CompatibilityMode: "exact",
		ExtraReleases: []config.ReleaseToken{{Token: "ltsc2028", Build: "10.0.30000"}},
		OSTaints:      config.OSTaints{Tolerate: true, Keys: []string{"os", "sku"}, Effects: []v1.TaintEffect{v1.TaintEffectNoSchedule}},
		// Off, so left out of the configuration: the scheduler's defaults.
		ImageResolution: config.ImageResolution{
			Scope: config.ResolutionNone, OnFailure: config.OnFailureTagRules,
			GateTimeout: metav1.Duration{Duration: 10 * time.Second}, RequestTimeout: metav1.Duration{Duration: 10 * time.Second},
			Cache:       config.ImageCache{MaxEntries: 20000, TagTTL: metav1.Duration{Duration: 10 * time.Minute}, NegativeTTL: metav1.Duration{Duration: time.Minute}},
			Concurrency: config.ImageConcurrency{Workers: 8, PerRegistry: 4}, MaxIndexEntries: 256,
		},
	}
	if diff := cmp.Diff(want, waArgs(t, cfg), cmpIgnoreTypeMeta); diff != "" {
		t.Errorf("WindowsAware args (-values +scheduler):\n%s", diff)
	}
}

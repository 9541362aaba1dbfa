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

package warnings

import (
	"encoding/json"
	"math/rand"
	"reflect"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/randfill"

	"github.com/windows-aware/windows-aware/pkg/workloadkind"
)

// generatedWords are the strings of generated objects: images of every
// OS and build, the OS names, the labels, builds, taints, operators and
// effects the decision and the verdicts read, the profile's name and the
// mirror pod's annotation, and the empty string, so that a field the
// warnings read, whichever it is, takes values that change their
// judgement.
var generatedWords = []string{
	"", "", "", warnImg2016, warnImg2019, warnImg2022, warnImgLinux, "windows", "linux", "Windows",
	v1.LabelOSStable, v1.LabelWindowsBuild, "10.0.17763", "10.0.20348", "10.0.26100",
	"os", "agentpool", "w22", "true", string(v1.TaintEffectNoSchedule), string(v1.TaintEffectNoExecute),
	string(v1.TolerationOpEqual), string(v1.TolerationOpExists), string(v1.NodeSelectorOpIn), string(v1.NodeSelectorOpNotIn),
	string(v1.NodeSelectorOpExists), "windows-aware", "default-scheduler", v1.MirrorPodAnnotationKey, "runtime-2022",
}

// generate is an object of kind k, every field of its API type set (one
// item in every list and map), or each left out at nilChance, its strings
// of generatedWords: what seed makes of it. Half the pods are ones the
// warnings judge: no node, no owner, no mirror annotation.
func generate(k *workloadkind.Kind, seed int64, nilChance float64) workloadkind.Object {
	obj := k.New()
	randfill.NewWithSeed(seed).NilChance(nilChance).NumElements(1, 1).Funcs(
		// The API's types that marshal themselves, each to a value that
		// reads back.
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewMilliQuantity(c.Int63n(4000), resource.DecimalSI)
		},
		func(x *intstr.IntOrString, c randfill.Continue) { *x = intstr.FromInt32(c.Int31n(100)) },
		func(t *metav1.Time, c randfill.Continue) { *t = metav1.Unix(c.Int63n(1<<31), 0) },
		func(t *metav1.MicroTime, c randfill.Continue) {
			*t = metav1.NewMicroTime(metav1.Unix(c.Int63n(1<<31), 0).Time)
		},
		func(f *metav1.FieldsV1, _ randfill.Continue) { *f = metav1.FieldsV1{Raw: []byte("{}")} },
		func(r *runtime.RawExtension, _ randfill.Continue) { *r = runtime.RawExtension{} },
	).Fill(obj)
	r := rand.New(rand.NewSource(seed))
	words(reflect.ValueOf(obj).Elem(), r)
	if k == workloadkind.Pod && r.Intn(2) == 0 {
		pod := obj.(*v1.Pod)
		pod.Spec.NodeName, pod.OwnerReferences = "", nil
		delete(pod.Annotations, v1.MirrorPodAnnotationKey)
	}
	return obj
}

// words sets every string of v, a value of an API type, map keys
// included, to one of generatedWords; the values that marshal themselves
// are left as generate made them.
func words(v reflect.Value, r *rand.Rand) {
	if v.CanAddr() {
		if _, ok := v.Addr().Interface().(json.Marshaler); ok {
			return
		}
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			words(v.Elem(), r)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				words(v.Field(i), r)
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return
		}
		for i := range v.Len() {
			words(v.Index(i), r)
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		m := reflect.MakeMap(v.Type())
		iter := v.MapRange()
		for iter.Next() {
			key, value := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			key.Set(iter.Key())
			value.Set(iter.Value())
			words(key, r)
			words(value, r)
			m.SetMapIndex(key, value)
		}
		v.Set(m)
	case reflect.String:
		v.SetString(generatedWords[r.Intn(len(generatedWords))])
	}
}

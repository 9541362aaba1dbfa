package main

import (
	"slices"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var (
	cmpSorted         = cmpopts.SortSlices(func(a, b string) bool { return a < b })
	cmpIgnoreTypeMeta = cmp.Options{cmpopts.IgnoreTypes(metav1.TypeMeta{}), cmpopts.EquateEmpty()}
	_                 = slices.Sort[[]string]
)

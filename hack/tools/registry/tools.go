//go:build tools

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

// Package tools pins the OCI distribution registry (the reference
// implementation behind the registry:3 image) that the integration tests run
// on 127.0.0.1. It has a module of its own because its dependencies (cloud
// storage drivers, redis, OpenTelemetry) must not reach the product module.
package tools

import (
	_ "github.com/distribution/distribution/v3/cmd/registry"
)

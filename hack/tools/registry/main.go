/*
Copyright The windows-aware Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
*/

// Command registry is the OCI distribution registry (the reference
// implementation behind the registry:3 image) that the integration tests
// and make demo run on 127.0.0.1, built with only what they configure:
// filesystem and in-memory storage and htpasswd authentication (see
// internal/registryserver). Upstream's cmd/registry links every cloud
// storage driver (S3, Azure, GCS) and CloudFront besides; leaving them
// out halves the packages a first build compiles, and no test uses them.
package main

import (
	"os"

	"github.com/distribution/distribution/v3/registry"
	_ "github.com/distribution/distribution/v3/registry/auth/htpasswd"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/filesystem"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/inmemory"
)

func main() {
	// RootCmd prints its own error; the exit status is what callers read.
	if err := registry.RootCmd.Execute(); err != nil {
		os.Exit(1)
	}
}

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

// Command chart-docs writes the values reference of the chart's README
// from its values.yaml: make chart-docs. With -check it writes nothing and
// fails when the README is out of date.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/windows-aware/windows-aware/internal/chartdocs"
)

func main() {
	chart := flag.String("chart", "charts/windows-aware-scheduler", "the chart's directory")
	check := flag.Bool("check", false, "fail, writing nothing, when README.md is out of date")
	flag.Parse()
	if err := run(*chart, *check); err != nil {
		fmt.Fprintln(os.Stderr, "chart-docs:", err)
		os.Exit(1)
	}
}

func run(chart string, check bool) error {
	readmeFile := filepath.Join(chart, "README.md")
	values, err := os.ReadFile(filepath.Join(chart, "values.yaml"))
	if err != nil {
		return err
	}
	readme, err := os.ReadFile(readmeFile)
	if err != nil {
		return err
	}
	updated, err := chartdocs.Update(readme, values)
	if err != nil {
		return err
	}
	if bytes.Equal(readme, updated) {
		return nil
	}
	if check {
		return fmt.Errorf("%s is out of date: run make chart-docs", readmeFile)
	}
	return os.WriteFile(readmeFile, updated, 0o644)
}

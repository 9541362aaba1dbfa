#!/usr/bin/env bash
# Copyright The windows-aware Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# make test-rules: the alerting rules the project ships
# (manifests/monitoring/prometheusrule.yaml, a PrometheusRule) checked and
# unit-tested by promtool against the recorded samples of rules_test.yaml
# beside this script. A rule whose expression does not parse, or that does
# not fire where its test expects it (the scheduler down, no leader, pods
# no scheduler looks at), fails; so does an alert that no test names.
#
# Usage: PROMTOOL=bin/tools/promtool hack/tools/promtool/test-rules.sh [RULE_FILE]
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
PROMTOOL=${PROMTOOL:-$ROOT/bin/tools/promtool}
RULES=${1:-$ROOT/manifests/monitoring/prometheusrule.yaml}
TESTS=$HERE/rules_test.yaml

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# promtool reads Prometheus rule files: the PrometheusRule's spec is one
# (its groups), indented by two spaces under spec:.
awk 'found { if ($0 ~ /^[^ #]/) exit; sub(/^  /, ""); print } /^spec:[[:space:]]*$/ { found = 1 }' \
  "$RULES" >"$work/prometheusrule.rules.yaml"
grep -q '^groups:' "$work/prometheusrule.rules.yaml" ||
  { echo "test-rules: no spec.groups in $RULES" >&2; exit 1; }
cp "$TESTS" "$work/rules_test.yaml"

# Every alert has a test that shows it firing.
untested=()
while read -r alert; do
  grep -qE "alertname: $alert\$" "$TESTS" || untested+=("$alert")
done < <(sed -n 's/^[[:space:]]*- alert:[[:space:]]*\([A-Za-z0-9_]*\).*/\1/p' "$work/prometheusrule.rules.yaml")
if ((${#untested[@]} > 0)); then
  echo "test-rules: no test in $TESTS names ${untested[*]}" >&2
  exit 1
fi

"$PROMTOOL" check rules "$work/prometheusrule.rules.yaml"
(cd "$work" && "$PROMTOOL" test rules rules_test.yaml)

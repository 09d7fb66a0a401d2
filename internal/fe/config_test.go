/*
Copyright 2026 The srscale authors.

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

package fe

import "testing"

func TestConfigValue(t *testing.T) {
	tests := []struct {
		name   string
		rows   []row
		key    string
		want   string
		wantOK bool
	}{
		{name: "the row whose Key is the name", key: "tablet_sched_max_scheduling_tablets", want: "2000", wantOK: true,
			rows: []row{{"key": "tablet_sched_max_scheduling_tablets", "value": "2000"}}},
		{name: "an alias: the row whose AliasNames lists it", key: "disable_balance", want: "true", wantOK: true,
			rows: []row{{"key": "tablet_sched_disable_balancing_x", "aliasnames": "[]", "value": "false"},
				{"key": "tablet_sched_disable_balance", "aliasnames": "[disable_balance]", "value": "true"}}},
		{name: "one row without AliasNames (an older FE): that row", key: "disable_balance", want: "false", wantOK: true,
			rows: []row{{"key": "tablet_sched_disable_balance", "value": "false"}}},
		{name: "no row: not shown", key: "disable_balance"},
		{name: "several rows, none named: not shown", key: "max_balancing_tablets",
			rows: []row{{"key": "a", "value": "1"}, {"key": "b", "value": "2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := configValue(tt.rows, tt.key)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("configValue = %q, %v; want %q, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
	if got := SetFrontendConfigSQL("disable_balance", "true"); got != `ADMIN SET FRONTEND CONFIG ('disable_balance' = 'true')` {
		t.Errorf("SetFrontendConfigSQL = %s", got)
	}
	if got := ShowFrontendConfigSQL("disable_balance"); got != `ADMIN SHOW FRONTEND CONFIG LIKE 'disable_balance'` {
		t.Errorf("ShowFrontendConfigSQL = %s", got)
	}
}

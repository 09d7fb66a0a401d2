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

import (
	"context"
	"fmt"
	"strings"
)

// FE's mutable configuration (docs/upgrades.md, "What StarRocks' source
// says"). ADMIN SET FRONTEND CONFIG takes one property, by field name or
// alias (ConfigBase.initAllMutableConfigs), sets it on the FE that runs it
// and then on every other alive FE (ConfigBase.setConfig), in memory only
// in a container: an FE that restarts is back at fe.conf's value. ADMIN
// SHOW FRONTEND CONFIG is answered by the FE the client reached, from its
// own memory (ShowStmt: NO_FORWARD); LIKE matches a field name or an alias
// and Key is the field name (ConfigBase.getConfigInfo). Both need OPERATE.

// SetFrontendConfigSQL sets one FE configuration key on every alive FE.
func SetFrontendConfigSQL(key, value string) string {
	return fmt.Sprintf("ADMIN SET FRONTEND CONFIG (%s = %s)", QuoteString(key), QuoteString(value))
}

// ShowFrontendConfigSQL shows the FE configuration keys whose field name or
// alias matches pattern (a LIKE pattern: '_' matches any one character).
func ShowFrontendConfigSQL(pattern string) string {
	return "ADMIN SHOW FRONTEND CONFIG LIKE " + QuoteString(pattern)
}

var frontendConfigColumns = []string{"key", "value"}

// FrontendConfig reads the value of each name (a field name or an alias)
// from the FE the connection reached, one statement per name. A name FE
// does not show is left out of the map: an older FE whose LIKE does not
// match aliases, or a key it does not have.
func (c *Client) FrontendConfig(ctx context.Context, names []string) (map[string]string, error) {
	out := map[string]string{}
	for _, name := range names {
		rows, err := c.query(ctx, ShowFrontendConfigSQL(name), frontendConfigColumns...)
		if err != nil {
			return nil, err
		}
		if v, ok := configValue(rows, name); ok {
			out[name] = v
		}
	}
	return out, nil
}

// configValue picks name's row: the one whose Key is name or whose
// AliasNames ("[a, b]") lists it, or the only row ('_' in a LIKE pattern
// matches any character, so a pattern may match other keys too).
func configValue(rows []row, name string) (string, bool) {
	for _, r := range rows {
		if r["key"] == name {
			return r["value"], true
		}
		for _, a := range strings.Split(strings.Trim(r["aliasnames"], "[]"), ",") {
			if strings.TrimSpace(a) == name {
				return r["value"], true
			}
		}
	}
	if len(rows) == 1 {
		return rows[0]["value"], true
	}
	return "", false
}

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

package plugin

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// TableOptions say how status prints its table.
type TableOptions struct {
	// AllNamespaces adds the NAMESPACE column.
	AllNamespaces bool
	// Wide adds PHASE, GENERATION, AGE and the whole message.
	Wide bool
	// Color paints each line by its state (stdout is a terminal).
	Color bool
	// Now is the time ages are relative to.
	Now time.Time
}

// DoingWidth is how much of Doing a line shows without -o wide.
const DoingWidth = 80

// ANSI colours of one length each, so that tabwriter, which counts them as
// text, still aligns the columns: every line starts with one and ends with
// the reset after its last (unaligned) cell.
const (
	colorRed    = "\x1b[31m"
	colorYellow = "\x1b[33m"
	colorGreen  = "\x1b[32m"
	colorBold   = "\x1b[01m"
	colorReset  = "\x1b[0m"
)

func colorOf(s State) string {
	switch s {
	case Attention:
		return colorRed
	case Progressing:
		return colorYellow
	}
	return colorGreen
}

// WriteStatus prints lines (sorted already) as aligned columns, then the summary.
func WriteStatus(w io.Writer, lines []Line, o TableOptions) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	header := []string{"NAME", "FE", "BE", "CN", "VERSION", "HEALTHY", "LAST BACKUP", "IN PROGRESS"}
	if o.AllNamespaces {
		header = append([]string{"NAMESPACE"}, header...)
	}
	if o.Wide {
		header = append(header[:len(header)-1], "PHASE", "GENERATION", "AGE", "SINCE", "IN PROGRESS")
	}
	row := func(color string, cells []string) {
		line := strings.Join(cells, "\t")
		if o.Color {
			line = color + line + colorReset
		}
		fmt.Fprintln(tw, line)
	}
	row(colorBold, header)
	for _, l := range lines {
		doing := l.Doing
		if doing == "" {
			doing = "-"
		}
		if !o.Wide {
			doing = Shorten(doing, DoingWidth)
		}
		cells := []string{l.Name, l.FE.String(), l.BE.String(), l.CN.String(), l.Version, l.Healthy, orDash(l.LastBackup), doing}
		if o.AllNamespaces {
			cells = append([]string{l.Namespace}, cells...)
		}
		if o.Wide {
			since := "-"
			if l.Since != nil {
				since = Ago(l.Since.Time, o.Now)
			}
			phase := l.Phase
			if phase == "" {
				phase = "-"
			}
			cells = append(cells[:len(cells)-1], phase, fmt.Sprintf("%d/%d", l.ObservedGeneration, l.Generation),
				strings.TrimSuffix(Ago(l.Created.Time, o.Now), " ago"), since, doing)
		}
		row(colorOf(l.state), cells)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, Count(lines).String())
	return err
}

// Shorten cuts s to n runes, marking the cut with "…".
func Shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

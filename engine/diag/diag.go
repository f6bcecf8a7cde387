// Package diag holds the diagnostics that sitedef loading reports: every problem with its file, line and
// column, collected rather than stopping at the first, so an author fixes a sitedef in one pass.
package diag

import (
	"fmt"
	"sort"
	"strings"
)

// Diagnostic is one problem in one file.
type Diagnostic struct {
	File    string `json:"file"`
	Line    int    `json:"line"`
	Col     int    `json:"col"`
	Message string `json:"message"`
	// Warning is true for problems that do not stop the sitedef from loading.
	Warning bool `json:"warning,omitempty"`
}

func (d Diagnostic) String() string {
	sev := "error"
	if d.Warning {
		sev = "warning"
	}
	return fmt.Sprintf("%s:%d:%d: %s: %s", d.File, d.Line, d.Col, sev, d.Message)
}

// List is a set of diagnostics; it is an error when it holds at least one non-warning.
type List []Diagnostic

// Add appends a diagnostic.
func (l *List) Add(file string, line, col int, format string, args ...any) {
	*l = append(*l, Diagnostic{File: file, Line: line, Col: col, Message: fmt.Sprintf(format, args...)})
}

// Warn appends a warning.
func (l *List) Warn(file string, line, col int, format string, args ...any) {
	*l = append(*l, Diagnostic{File: file, Line: line, Col: col, Message: fmt.Sprintf(format, args...), Warning: true})
}

// HasErrors reports whether any diagnostic is an error.
func (l List) HasErrors() bool {
	for _, d := range l {
		if !d.Warning {
			return true
		}
	}
	return false
}

// Sort orders by file, line, column.
func (l List) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i], l[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// Err returns l as an error when it holds errors, else nil.
func (l List) Err() error {
	if !l.HasErrors() {
		return nil
	}
	return l
}

func (l List) Error() string {
	var b strings.Builder
	for i, d := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(d.String())
	}
	return b.String()
}

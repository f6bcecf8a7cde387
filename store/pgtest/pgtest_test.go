package pgtest

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestFindBinIn(t *testing.T) {
	empty, full, partial := t.TempDir(), t.TempDir(), t.TempDir()
	for _, b := range []string{"initdb", "pg_ctl", "postgres"} {
		if err := os.WriteFile(filepath.Join(full, b), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(partial, "pg_ctl"), nil, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		dirs []string
		want string
	}{
		{"none", nil, ""},
		{"empty", []string{empty}, ""},
		{"pg_ctl alone is not enough", []string{partial}, ""},
		{"the first complete one", []string{empty, partial, full}, full},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := findBinIn(tt.dirs)
			if tt.want == "" {
				if !errors.Is(err, ErrNoBinaries) {
					t.Fatalf("got %q %v, want ErrNoBinaries", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("got %q %v, want %q", got, err, tt.want)
			}
		})
	}
}

package fileperm

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckPrivate(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "key.jwk")
	tests := []struct {
		name  string
		path  string
		mode  fs.FileMode // 0: leave the path absent
		fixed string      // "" when the path passes
	}{
		{"absent", filepath.Join(dir, "absent"), 0, ""},
		{"file 0600", file, 0o600, ""},
		{"file 0400", file, 0o400, ""},
		{"file 0644", file, 0o644, "chmod 600 " + file},
		{"file 0640", file, 0o640, "chmod 600 " + file},
		{"file 0602", file, 0o602, "chmod 600 " + file},
		{"dir 0700", dir, 0o700, ""},
		{"dir 0711", dir, 0o711, "chmod 700 " + dir},
	}
	if err := os.WriteFile(file, []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.mode != 0 {
				if err := os.Chmod(tt.path, tt.mode); err != nil {
					t.Fatal(err)
				}
				restore := fs.FileMode(0o600)
				if tt.path == dir {
					restore = 0o700
				}
				defer os.Chmod(tt.path, restore)
			}
			err := CheckPrivate(tt.path)
			switch {
			case tt.fixed == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tt.fixed != "" && (err == nil || !strings.Contains(err.Error(), tt.fixed)):
				t.Errorf("got %v, want a refusal saying %q", err, tt.fixed)
			}
		})
	}
}

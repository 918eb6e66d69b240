package config

import (
	"bufio"
	"bytes"
	"os"
	"strings"
)

// Description returns the first paragraph of the leading comment of the
// config file at path (the embedded default for an empty path): the
// comment lines before the first key, up to the first empty comment line,
// without their "#" and joined by spaces. It is "" when the file has no
// leading comment or cannot be read; it describes a run in its report and
// never changes results.
func Description(path string) string {
	b := defaultYAML
	if path != "" {
		var err error
		if b, err = os.ReadFile(path); err != nil {
			return ""
		}
	}
	return describe(b)
}

// describe implements Description on the file's content.
func describe(b []byte) string {
	var parts []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "#") {
			if line == "" && len(parts) == 0 {
				continue
			}
			break
		}
		text := strings.TrimSpace(strings.TrimLeft(line, "#"))
		if text == "" {
			if len(parts) > 0 {
				break
			}
			continue
		}
		parts = append(parts, text)
	}
	return strings.Join(parts, " ")
}

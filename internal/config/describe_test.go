package config

import "testing"

func TestDescribe(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"# A first line\n#  and a second.\n#\n# Not this.\nname: x\n", "A first line and a second."},
		{"\n# Lead.\nname: x # not this\n", "Lead."},
		{"name: x\n# late comment\n", ""},
		{"#\n# After an empty comment.\n\nname: x\n", "After an empty comment."},
		{"", ""},
	} {
		if got := describe([]byte(tc.in)); got != tc.want {
			t.Errorf("describe(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Description(""); got == "" {
		t.Error("the embedded default has no description")
	}
	if got := Description("/nonexistent/x.yaml"); got != "" {
		t.Errorf("missing file: %q", got)
	}
}

package dataset

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestHeader(t *testing.T) {
	for _, test := range []struct {
		ds, da int
		want   string
	}{
		{1, 1, "s,a,s_next"},
		{1, 2, "s0,a0,a1,s_next0"},
		{2, 1, "s0,s1,a0,s_next0,s_next1"},
		{3, 2, "s0,s1,s2,a0,a1,s_next0,s_next1,s_next2"},
		{0, 1, ""},
		{1, 0, ""},
		{-1, -1, ""},
	} {
		got := Header(test.ds, test.da)
		if strings.Join(got, ",") != test.want {
			t.Errorf("Header(%d, %d) = %q, want %q", test.ds, test.da, got, test.want)
		}
		if test.want == "" && got != nil {
			t.Errorf("Header(%d, %d) = %q, want nil", test.ds, test.da, got)
		}
	}
}

// TestHeaderRead checks that Read accepts what Header produces.
func TestHeaderRead(t *testing.T) {
	for ds := 1; ds <= 12; ds++ {
		for da := 1; da <= 12; da++ {
			row := strings.TrimSuffix(strings.Repeat("0,", 2*ds+da), ",")
			in := strings.Join(Header(ds, da), ",") + "\n" + row + "\n"
			got, err := Read(strings.NewReader(in), "h.csv")
			if err != nil {
				t.Fatalf("ds=%d da=%d: %v", ds, da, err)
			}
			if got.StateDim != ds || got.ActionDim != da || got.Len() != 1 {
				t.Errorf("ds=%d da=%d: got StateDim %d, ActionDim %d, Len %d", ds, da, got.StateDim, got.ActionDim, got.Len())
			}
		}
	}
}

func TestTransitions(t *testing.T) {
	var tr Transitions
	if n := tr.Len(); n != 0 {
		t.Errorf("zero value: Len = %d", n)
	}
	if n := (*Transitions)(nil).Len(); n != 0 {
		t.Errorf("nil: Len = %d", n)
	}

	s := []float64{1, 2}
	tr.Append(s, []float64{3}, []float64{4, 5})
	s[0] = 100 // Append copies.
	tr.Append([]float64{6, 7}, []float64{8}, []float64{9, 10})
	if tr.StateDim != 2 || tr.ActionDim != 1 || tr.Len() != 2 {
		t.Fatalf("after Append: StateDim %d, ActionDim %d, Len %d, want 2, 1, 2", tr.StateDim, tr.ActionDim, tr.Len())
	}
	for _, test := range []struct {
		name string
		got  []float64
		want []float64
	}{
		{"State(0)", tr.State(0), []float64{1, 2}},
		{"Action(0)", tr.Action(0), []float64{3}},
		{"NextState(0)", tr.NextState(0), []float64{4, 5}},
		{"State(1)", tr.State(1), []float64{6, 7}},
		{"Action(1)", tr.Action(1), []float64{8}},
		{"NextState(1)", tr.NextState(1), []float64{9, 10}},
	} {
		if !slices.Equal(test.got, test.want) {
			t.Errorf("%s = %v, want %v", test.name, test.got, test.want)
		}
		if cap(test.got) != len(test.got) {
			t.Errorf("%s: cap %d, want %d", test.name, cap(test.got), len(test.got))
		}
	}

	// Views share memory with the data set, and appending to one does not
	// overwrite the next transition.
	v := tr.State(0)
	v[1] = -2
	if tr.S[1] != -2 {
		t.Errorf("State(0) is not a view of S")
	}
	_ = append(v, 99)
	if tr.S[2] != 6 {
		t.Errorf("appending to State(0) overwrote State(1)")
	}
}

func TestTransitionsPanics(t *testing.T) {
	tr := &Transitions{StateDim: 2, ActionDim: 1, S: []float64{1, 2}, A: []float64{3}, Next: []float64{4, 5}}
	for _, test := range []struct {
		name string
		f    func()
	}{
		{"State(-1)", func() { tr.State(-1) }},
		{"State(1)", func() { tr.State(1) }},
		{"Action(1)", func() { tr.Action(1) }},
		{"NextState(1)", func() { tr.NextState(1) }},
		{"Action(0) with short A", func() { (&Transitions{StateDim: 1, ActionDim: 2, S: []float64{1}, A: []float64{1}}).Action(0) }},
		{"Append short state", func() { tr.Append([]float64{1}, []float64{1}, []float64{1, 2}) }},
		{"Append long action", func() { tr.Append([]float64{1, 2}, []float64{1, 2}, []float64{1, 2}) }},
		{"Append short next", func() { tr.Append([]float64{1, 2}, []float64{1}, []float64{1}) }},
		{"Append empty to zero value", func() { new(Transitions).Append(nil, nil, nil) }},
		{"Append empty action to zero value", func() { new(Transitions).Append([]float64{1}, nil, []float64{1}) }},
	} {
		t.Run(test.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if r == nil {
					t.Fatal("no panic")
				}
				if msg := fmt.Sprint(r); !strings.HasPrefix(msg, "dataset: ") {
					t.Errorf("panic %q does not start with \"dataset: \"", msg)
				}
			}()
			test.f()
		})
	}
	if tr.Len() != 1 || len(tr.A) != 1 || len(tr.Next) != 2 {
		t.Errorf("a failed Append changed the data set: %+v", *tr)
	}
}

package dataset_test

import (
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/smrl-dev/smrl/internal/dataset"
)

func Example() {
	const data = `s0,s1,a0,s_next0,s_next1
0.5,-1,0.1,0.52,-0.98
0.52,-0.98,-0.3,0.49,-0.97
`
	t, err := dataset.Read(strings.NewReader(data), "data.csv")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("transitions:", t.Len(), "state dim:", t.StateDim, "action dim:", t.ActionDim)
	for i := range t.Len() {
		fmt.Println(t.State(i), t.Action(i), t.NextState(i))
	}

	// Bad data gives an error naming the file, line and column.
	_, err = dataset.Read(strings.NewReader("s,a,s_next\n1,2,3\n4,abc,6\n"), "data.csv")
	fmt.Println(err)

	// Output:
	// transitions: 2 state dim: 2 action dim: 1
	// [0.5 -1] [0.1] [0.52 -0.98]
	// [0.52 -0.98] [-0.3] [0.49 -0.97]
	// data.csv line 3 column "a": "abc" is not a number
}

func ExampleWrite() {
	var t dataset.Transitions
	t.Append([]float64{0}, []float64{1}, []float64{0.1})
	t.Append([]float64{0.1}, []float64{-1}, []float64{1.0 / 3})
	if err := dataset.Write(os.Stdout, &t); err != nil {
		log.Fatal(err)
	}
	// Output:
	// s,a,s_next
	// 0,1,0.1
	// 0.1,-1,0.3333333333333333
}

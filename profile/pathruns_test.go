package profile

import "fmt"

func ExamplePathRuns() {
	fmt.Println(PathRuns([]uint64{3, 12, 12, 18, 3, 3, 3}))
	fmt.Println(PathRuns(nil) == "")
	// Output:
	// 3 12×2 18 3×3
	// true
}

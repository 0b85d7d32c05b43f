package a // want package:"3 functions"

// Die never returns: ctrlflow exports that as a fact.
func Die(msg string) { // want Die:"paths 1"
	panic(msg)
}

func Loop(n int) int { // want Loop:"paths 4"
	s := 0
	for i := 0; i < n; i++ {
		s += i
	}
	return s
}

type T struct{ x int }

func (t *T) Sign() int { // want Sign:"paths 3"
	switch {
	case t.x < 0:
		return -1
	case t.x > 0:
		return 1
	}
	return 0
}

// Package infeasible proves paths of a function infeasible: sets of its
// branch outcomes that no run takes together, because the conditions they
// test contradict. pppexec records what it proves in each function's
// metadata (profile.Infeasible), the reports count the paths that take
// every outcome of one set as infeasible and leave them out of the
// coverage they give, and the vet tool says how many of a function's paths
// it proved infeasible.
//
// # Sound, not complete
//
// A path is proved infeasible only when it cannot run, whatever the
// program's input, goroutines or memory. Everything the proof does not
// follow is taken to be anything: a path that cannot run for a reason the
// analysis does not see is counted as feasible, never the other way.
// Tests keep it so: every profile that a test of this repository makes is
// checked, path by path, against what its build proved (a path that ran
// through a contradiction is a report.ProofError), including random
// programs run on every input of a small domain (TestSoundOnRandomPrograms)
// and the standard library's and real modules' tests (bench -infeasible).
//
// # What a branch says
//
// The function's SSA form (golang.org/x/tools/go/ssa, built in debug mode
// so that each expression of the source has its value) gives each
// condition in terms of values (terms.go): each SSA value is one term,
// and two values are the same term when they are the same pure operation
// of the same terms (a field of a value, len of a slice or string,
// arithmetic, a conversion, a comparison), so an expression written twice
// is one term. A load from memory is a term of its own, as is a call (but
// len and cap of a slice made with make, a string constant or an array)
// or a receive, except a load of a local that is stored once before any
// read and whose address goes nowhere else, which is the value stored. A
// φ-node whose incoming values are all one term is that term, and one
// whose incoming values are all constants is one of them.
//
// An edge of the function's graph (package funcgraph) then says
// (analyze.go, conditions.go): an if's or for's condition holds or not;
// a case clause's expressions, one of them equal to the switch's tag, or
// none; a type switch's case, the operand's dynamic type, or none of the
// listed; a range loop's first test, on a path that enters the loop, that
// what it ranges over has an element or is empty (len(x) > 0, n > 0 for
// range over an integer; an array's length is known).
//
// Why a term is one value along a path: a path of the Ball-Larus
// numbering is acyclic, so it runs each block, and each SSA instruction,
// at most once, and an SSA value is defined once before it is used. The
// one care is a loop's header: its φ-nodes take a new value each round.
// A path that starts outside a loop and takes its one entering edge runs
// the loop's first round, so on it the header's φ-nodes hold what flowed
// in from before the loop; the analysis proves facts in that view too,
// guarded by the entering edge (a contradiction found in it includes that
// edge, so only paths that take it are counted).
//
// # The solver
//
// A set of facts contradicts when its formula, in disjunctive normal form,
// has no satisfiable conjunction (solve.go): equal terms are merged, and a
// class may not hold two constants, nor be != itself; integers lie in the
// intervals of their types, of constants compared with them, of lengths
// (never negative) and of φ-nodes of constants, with the constants
// excluded by != narrowing them; comparisons between integer terms are
// difference constraints, checked for a negative cycle; values that
// cannot be nil (an allocation, the address of a field) are not nil; a
// dynamic type is one type, none for nil, and an interface's
// implementation follows from it. Floats are not compared (NaN), nor is
// arithmetic followed (x + 1 wraps at the largest int): such a condition
// is a term of its own, which may hold or not.
//
// Facts are tried alone, in pairs that share a term, and in threes, each
// set taken together only when one path of the numbering can take all of
// its edges; a set that contains a smaller contradiction is not reported
// again. The work is bounded per function (maxSolves, maxConjuncts):
// past it, what is proved so far stands.
//
// # What is not followed
//
// Calls other than len and cap (even pure ones), memory (another
// goroutine may write it between two loads), floats and arithmetic (see
// above), channels and maps' contents, closures' captured variables, and
// a loop's later rounds: a path that starts where a loop goes round again
// is not known to have run a round, so len(x) > 0 there is not known.
package infeasible

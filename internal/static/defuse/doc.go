// Package defuse lists, for each block of a function's control-flow graph
// (package funcgraph), the statements it evaluates with the variables each
// defines and uses and the calls each makes, in the order they run: the
// static half of dynamic slicing, which a -deps build writes into the
// metadata (profile.Deps) and the slicer replays along a run's paths.
//
// # Variables
//
// A local variable is symbolic when the syntax shows all its accesses: it
// is declared in the function (not in a literal inside it), its address is
// never taken (&v, a slice of an array v, a pointer method called on v)
// and no function literal captures it. The slicer keys symbolic variables
// by call and index, never by address, so goroutine stacks may move. Every
// other read is a read through memory (Stmt.Memory): a pointer's target, a
// field through a pointer, an element of a slice or a map, a package-level
// variable, a captured or address-taken local, a channel receive. A -deps
// build does not record memory yet, so a slice stops there and says so.
//
// A write to part of a symbolic variable (v.f = x, v[i] = x on an array)
// defines the variable and reads it too: the other parts keep their
// earlier definitions.
//
// # Statements
//
// A statement is a node of a block as funcgraph builds it: a simple
// statement, an if or for condition, a switch tag or case expression, the
// range expression. Some are added that the syntax does not have as nodes:
// Stmts[0], the function's entry, which defines the parameters and the
// named results; each range loop's test, at the head, which reads the
// range expression's value, and its assignment, at the start of the body,
// which defines the key and value and reads the element; each type switch
// clause's binding of its variable; and a switch's tag, a synthetic
// variable that the tag defines and the case expressions use.
//
// # Calls
//
// A call whose callee is instrumented appears in the run's whole program
// path as a call of its own. A call's arguments are kept apart (DepCall.Args)
// so that the callee's parameters depend on them and the statement on the
// callee's return; for a call of code that is not instrumented, the
// statement depends on the arguments directly (the summary: results depend
// on arguments). Calls run in the order of their closing parentheses, which
// puts f(g(x))'s g first, as Go evaluates them. Builtins and conversions are
// not calls: their operands are the statement's uses.
package defuse

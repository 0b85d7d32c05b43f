// Package expr evaluates arithmetic expressions with variables and a few
// functions, such as "2 * (x + 1)" or "max(a, b) ^ 2". It is the example
// that pathcover's README profiles: a small parser whose tests cover the
// common cases, as real tests do, and leave paths untried.
package expr

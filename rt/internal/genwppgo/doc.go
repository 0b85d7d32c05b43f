// Command genwppgo writes rt/wppgo.go, the go statement helpers of a -wpp
// build: go generate ./rt (run in rt, it writes wppgo.go there).
package main
